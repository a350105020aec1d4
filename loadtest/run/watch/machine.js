// What the lab reads of the machine it runs on: the machine block of a report and installed packages'
// versions (the I/O that the pure result/ shapes leave to the run).
import os from 'node:os'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ROOT } from '../../catalog.js'
import { roundTo } from '../../result/stats.js'

// The version of an installed package, read from its package.json (null when not installed). Looked up as
// Node resolves the lab's imports, node_modules/ of the lab's root and then of each folder above it: in a
// project that installed the lab, its dependencies sit beside it (my-app/node_modules/fastify), not inside.
export function packageVersion (name, root = ROOT) {
  for (let dir = root; ; dir = dirname(dir)) {
    try {
      return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version
    } catch {}
    if (dirname(dir) === dir) return null
  }
}

function packageJson () {
  return JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
}

// The machine block: CPU, cores, memory, OS, Node/V8 and library versions, load average now.
export function machine () {
  const cpus = os.cpus()
  return {
    hostname: os.hostname(),
    cpuModel: cpus[0]?.model?.trim() ?? null,
    cores: cpus.length,
    availableParallelism: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    os: { type: os.type(), platform: os.platform(), release: os.release() },
    arch: os.arch(),
    node: process.version,
    v8: process.versions.v8,
    // The Node lines this lab supports (package.json engines); --node runs the servers under others.
    nodeSupported: packageJson().engines?.node ?? null,
    versions: Object.fromEntries(['fastify', 'piscina', 'autocannon', 'react'].map((n) => [n, packageVersion(n)])),
    loadavg: os.loadavg().map((x) => roundTo(x, 2))
  }
}
