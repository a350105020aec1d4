// Libraries loaded when first used, not when a module that uses them is imported: ajv, jstat, autocannon,
// hdr-histogram-js and execa cost more CPU to load than the rest of the lab, and a refusal, --help or a
// compare needs few of them (every command the suite and a user type starts faster). Here, below everything,
// so result/ may use it too.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

// A CommonJS library, required on the first call: () => its exports.
export function lazyRequire (name) {
  let lib = null
  return () => (lib ??= require(name))
}

let execaModule = null
// execa (an ES module), imported on the first call: resolves its execa().
export async function loadExeca () {
  execaModule ??= await import('execa')
  return execaModule.execa
}
