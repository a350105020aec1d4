// The slow API of study 001: a global call counter; every second call waits --slow ms (1000), the
// others --fast ms (100); answers 200 with an empty body. Started by long-vs-small-tasks with an IPC
// channel (it reports its port there and exits when the channel closes), or by hand.
import { createServer } from 'node:http'
import { integer, parseOptions } from '../lib/options.js'
import { main, onShutdown } from '../lib/serve.js'

main(async () => {
  const options = parseOptions({
    strategy: 'long-vs-small-tasks/api.js',
    work: null, // no --work: the emulator does no work of its own
    extra: {
      slow: { default: '1000', parse: integer(0, 60000), help: 'ms every second call waits' },
      fast: { default: '100', parse: integer(0, 60000), help: 'ms the other calls wait' }
    }
  })
  let calls = 0
  const server = createServer((req, res) => {
    calls++
    setTimeout(() => res.end(), calls % 2 === 0 ? options.slow : options.fast)
  })
  await new Promise((resolve, reject) => server.once('error', reject).listen(options.port, options.host, resolve))
  const { port } = server.address()
  onShutdown(
    () =>
      new Promise((resolve) => {
        server.close(resolve)
        server.closeAllConnections()
      })
  )
  if (process.send) process.send({ port })
  else console.log(`listening on http://${options.host}:${port} (api emulator, pid ${process.pid})`)
})
