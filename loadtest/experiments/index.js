// The experiment registry: name → lazy loader. A name is offered only when its file exists, so an
// experiment still being written (or dispatch, made elsewhere) never breaks the others.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const registry = {
  tour: './tour.js',
  'heavy-cpu': './heavy-cpu.js',
  sleep: './sleep.js',
  'long-vs-small': './long-vs-small.js',
  'ssr-offload': './ssr-offload.js',
  dispatch: './dispatch.js'
}

const here = (file) => fileURLToPath(new URL(file, import.meta.url))

// The names of the experiments whose module exists.
export function experimentNames () {
  return Object.keys(registry).filter((name) => existsSync(here(registry[name])))
}

// Load one experiment module's default export (throws when it is not registered or absent).
export async function loadExperiment (name) {
  if (!registry[name]) throw new Error(`unknown experiment ${name}`)
  const mod = await import(registry[name])
  return mod.default
}
