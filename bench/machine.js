// The machine line every figure is printed under.
import os from 'node:os'
import { readFile } from 'node:fs/promises'

async function version (name) {
  try {
    const url = new URL(`../node_modules/${name}/package.json`, import.meta.url)
    return JSON.parse(await readFile(url, 'utf8')).version
  } catch {
    return null
  }
}

// CPU, cores, memory, OS, Node and the versions of the tools the bench uses.
export async function machine () {
  return {
    hostname: os.hostname(),
    cpuModel: os.cpus()[0]?.model?.trim() ?? null,
    cores: os.cpus().length,
    availableParallelism: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    os: { type: os.type(), platform: os.platform(), release: os.release() },
    arch: os.arch(),
    node: process.version,
    v8: process.versions.v8,
    versions: { piscina: await version('piscina'), autocannon: await version('autocannon'), fastify: await version('fastify') },
    loadavg: os.loadavg()
  }
}
