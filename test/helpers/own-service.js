// Start the test's own service (test/fixtures/servers/own-service.js, not a lab server) as a child
// process, ask it what it saw, stop it. Shared by the tests that load a service by --url with a mix.
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { ROOT } from '../../loadtest/catalog.js'

export const OWN_SERVICE = join(ROOT, 'test', 'fixtures', 'servers', 'own-service.js')
export const TWO_CLASSES = join(ROOT, 'test', 'fixtures', 'mixes', 'two-classes.json')
// The same classes with targets a busy machine can meet (a capacity sweep's test)
export const TWO_CLASSES_LOOSE = join(ROOT, 'test', 'fixtures', 'mixes', 'two-classes-loose.json')

// Start it; resolves { url, seen(), stop() }: seen() → { requests: [{ method, url, body, ua,
// connection }], dropped, counts, noUserAgent, connectionClose } (counts: of every request, as tally gives).
export async function startOwnService ({ env = {} } = {}) {
  const child = fork(OWN_SERVICE, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  const [ready] = await once(child, 'message')
  return {
    url: `http://127.0.0.1:${ready.port}`,
    async seen () {
      child.send({ type: 'seen' })
      const [m] = await once(child, 'message')
      return m
    },
    async stop () {
      if (child.exitCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      await exited
    }
  }
}

// What a service saw, as "METHOD URL BODY" → count.
export function tally (requests) {
  const out = {}
  for (const r of requests) {
    const k = `${r.method} ${r.url} ${r.body}`
    out[k] = (out[k] ?? 0) + 1
  }
  return out
}
