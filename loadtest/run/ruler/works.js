// The ruler's fixed works: a loop and a small render as the fleet's servers run them (servers/lib/workloads.js),
// a hash and a JSON round trip of a fixed input. Each is one call of about a millisecond or less on a 2-core
// VM, pure and deterministic, so that its time is the machine's. Fixed: a report's ruler is compared with
// every other report's, so a change here changes what the ruler measures (say so in the CHANGELOG).
import { createHash } from 'node:crypto'
import { runWork } from '../../../servers/lib/workloads.js'
import { RULER_WORKS } from '../../result/ruler.js'

// 512 KiB of fixed bytes for the hash.
const BYTES = Buffer.alloc(512 * 1024, 'loadlab ruler ')

// An object of 200 small records for the JSON round trip.
const RECORDS = Array.from({ length: 200 }, (_, i) => ({
  id: i, name: `item ${i}`, tags: ['a', 'b', String(i % 7)], price: i * 1.25
}))

// The works by the name the reading gives them (result/ruler.js single.<name>).
export const WORKS = Object.freeze({
  loop: () => runWork(RULER_WORKS.loop),
  hash: () => createHash('sha256').update(BYTES).digest('hex'),
  json: () => JSON.parse(JSON.stringify(RECORDS)).length,
  render: () => runWork(RULER_WORKS.render)
})

// The unit the threads of the cores measure run, one after another: the loop, smaller (a window of 30 ms
// holds hundreds of them).
export const CORE_UNIT = () => runWork('loop:1e5')
