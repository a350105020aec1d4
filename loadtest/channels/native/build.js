// The native caller's build: node-gyp against the Node headers already on the machine (--nodedir, never
// a download), only when the dispatch experiment asks for it. loadNativeCaller() resolves with
// { addon, built } or { addon: null, reason } (one line: why there is no native caller here).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, statSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, rename, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// The addon's sources (binding.gyp, caller.c), and by default where it is built.
const NATIVE_DIR = dirname(fileURLToPath(import.meta.url))
const SOURCES = ['binding.gyp', 'caller.c']
const ADDON = join('build', 'Release', 'loadlab_caller.node')
// How long a build may take before it is given up.
const BUILD_TIMEOUT_MS = 180_000

// The settings a build reads from the environment: LOADLAB_NATIVE=off turns the native caller off,
// LOADLAB_NATIVE_CC names the C compiler (default $CC, else cc), LOADLAB_NATIVE_DIR builds elsewhere.
export function nativeSettings (env = process.env) {
  return {
    off: env.LOADLAB_NATIVE === 'off',
    cc: env.LOADLAB_NATIVE_CC || env.CC || 'cc',
    dir: env.LOADLAB_NATIVE_DIR || NATIVE_DIR
  }
}

// An executable's path: itself when it has a slash, else the first match on PATH (null: none).
function which (cmd, env = process.env) {
  if (cmd.includes('/')) return existsSync(cmd) ? cmd : null
  for (const d of (env.PATH ?? '').split(delimiter)) if (d && existsSync(join(d, cmd))) return join(d, cmd)
  return null
}

// node-gyp: npm's own copy beside this node, else one installed in the project.
function nodeGyp () {
  const npmCopy = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin',
    'node-gyp.js')
  if (existsSync(npmCopy)) return npmCopy
  try {
    return createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js')
  } catch {
    return null
  }
}

// The directory holding include/node/node_api.h for this node (null: none).
function nodeDir () {
  const candidates = [process.config.variables?.node_prefix, join(dirname(process.execPath), '..')]
  return candidates.find((d) => d && isAbsolute(d) && existsSync(join(d, 'include', 'node', 'node_api.h'))) ?? null
}

// The first line of a failed build's output that says why.
function whyFailed (output) {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean)
  return (lines.find((l) => /error|not found|no such file|cannot|command failed/i.test(l) && !/^gyp info/.test(l)) ??
    lines.at(-1) ?? 'no output').slice(0, 200)
}

// What a build needs besides a compiler and is not here, in words (null: node-gyp and this node's headers
// are both here). The npm registry's \`node\` package (Node 22 and 24 under .runtimes/) has neither.
export function buildToolsMissing () {
  if (!nodeGyp()) return 'node-gyp not found (npm\'s copy or the project\'s)'
  if (!nodeDir()) return `no Node headers (include/node/node_api.h) beside ${process.execPath}`
  return null
}

// Build in a fresh folder of its own under dir/build, then move the addon into place (a rename: two
// runs building at once each move a whole file, and neither loads a half-written one). null: built.
async function build (dir, cc) {
  const missing = buildToolsMissing()
  if (missing) return missing
  const [gyp, headers] = [nodeGyp(), nodeDir()]
  if (!which(cc)) return `no C compiler: ${cc} not found`
  let work
  try {
    await makeDirs(join(dir, 'build', 'Release'))
    work = await mkdtemp(join(dir, 'build', 'work-'))
    for (const f of SOURCES) await copyFile(join(NATIVE_DIR, f), join(work, f))
  } catch (err) {
    return `cannot build in ${dir}: ${err.code ?? err.message}`
  }
  try {
    const reason = await nodeGypRebuild(gyp, headers, work, cc)
    if (!reason) await rename(join(work, ADDON), join(dir, ADDON))
    return reason
  } finally {
    await rm(work, { recursive: true, force: true })
  }
}

// Make `path` and its missing parents one level at a time: Node's mkdir({ recursive: true }) never
// returns for a path under /proc (LOADLAB_NATIVE_DIR=/proc/x spun the lab at full CPU); here the first
// level that cannot be made throws its error. A level another build made meanwhile is there: no error (two
// builds into one folder at once, test/loadtest/channels/native.test.js).
async function makeDirs (path) {
  const missing = []
  for (let p = resolve(path); !existsSync(p) && dirname(p) !== p; p = dirname(p)) missing.unshift(p)
  for (const d of missing) {
    await mkdir(d).catch((err) => {
      if (err.code !== 'EEXIST') throw err
    })
  }
}

// node-gyp rebuild in `cwd`: null, or why it failed.
async function nodeGypRebuild (gyp, headers, cwd, cc) {
  const child = spawn(process.execPath, [gyp, 'rebuild', `--nodedir=${headers}`], {
    cwd,
    env: { ...process.env, CC: cc, npm_config_nodedir: headers },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: BUILD_TIMEOUT_MS
  })
  let output = ''
  const keep = (b) => { output = (output + b).slice(-20_000) } // the tail is where a failure is told
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const [code, signal] = await once(child, 'close')
  if (code === 0) return null
  return signal ? `build ended by ${signal} (over ${BUILD_TIMEOUT_MS / 1000} s?)` : `build failed: ${whyFailed(output)}`
}

// The native caller, built first when its addon is missing or older than its source.
export async function loadNativeCaller (settings = nativeSettings()) {
  if (settings.off) return { addon: null, reason: 'turned off (LOADLAB_NATIVE=off)' }
  const file = join(settings.dir, ADDON)
  const stale = !existsSync(file) || statSync(file).mtimeMs < statSync(join(NATIVE_DIR, 'caller.c')).mtimeMs
  let built = false
  if (stale) {
    const reason = await build(settings.dir, settings.cc)
    if (reason) return { addon: null, reason }
    built = true
  }
  try {
    return { addon: createRequire(import.meta.url)(file), file, built }
  } catch (err) {
    return { addon: null, reason: `the built addon does not load: ${err.message.split('\n')[0]}` }
  }
}
