// Preloaded (node --import) into a lab the tests start, to learn its peak memory: on exit, the process's
// VmHWM (the most resident memory it ever held, threads included) in kB, written to LOADLAB_PEAK_RSS_FILE.
import { readFileSync, writeFileSync } from 'node:fs'

const file = process.env.LOADLAB_PEAK_RSS_FILE
if (file) {
  process.on('exit', () => {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    writeFileSync(file, String(kb ?? ''))
  })
}
