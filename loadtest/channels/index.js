// The three ways the dispatch experiment calls its hook, behind one interface.
//
// createDispatcher(mode, opts) resolves (once every thread is ready) with
//   { mode, workers, startupMs, setCost(ms), call(id) → Promise<string>,
//     batch(id, calls, { signal }) → Promise<Array<string | Error>>, close() → Promise<void> }
// and close() ends every thread it started. opts: { workers, hook, maxPayloadBytes, signal }.
import { isAbsolute } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createMainDispatcher } from './main.js'
import { createPiscinaDispatcher } from './piscina.js'
import { createSharedDispatcher } from './shared.js'
import { createNativeDispatcher, NATIVE_MODES } from './native.js'

export { defaultHook, expectedAnswer, makeId, resolveId, spin } from './hook.js'
export { ChannelError } from './errors.js'
export { NATIVE_MODES }
export { buildToolsMissing, loadNativeCaller, nativeSettings } from './native/build.js'

// The modes, in the order the study shows them: the JS callers, then the native caller's (opts.native: a
// loaded caller, native/build.js).
export const MODES = ['main', 'piscina', 'shared', ...NATIVE_MODES]

// The modes that call the hook on the main thread, without workers.
export const UNPOOLED = ['main', 'native-main']

const factories = {
  main: createMainDispatcher,
  piscina: createPiscinaDispatcher,
  shared: createSharedDispatcher,
  ...Object.fromEntries(NATIVE_MODES.map((m) => [m, (opts) => createNativeDispatcher({ ...opts, mode: m })]))
}

// A hook given as a file path or a URL, as the URL string every thread can import().
function hookUrl (hook) {
  if (hook === undefined) return undefined
  if (hook instanceof URL) return hook.href
  if (typeof hook === 'string' && isAbsolute(hook)) return pathToFileURL(hook).href
  if (typeof hook === 'string' && hook.startsWith('file:')) return hook
  throw new TypeError(
    'hook: expected an absolute path or a file: URL of a module exporting resolveId(id, costMs), ' +
      `got ${JSON.stringify(hook)}`
  )
}

// Start a dispatcher of `mode` (one of MODES).
export async function createDispatcher (mode, opts = {}) {
  const factory = factories[mode]
  if (!factory) throw new RangeError(`mode: expected one of ${MODES.join(', ')}, got ${JSON.stringify(mode)}`)
  return factory({ ...opts, hook: hookUrl(opts.hook ?? undefined) })
}
