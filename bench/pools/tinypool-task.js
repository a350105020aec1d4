// The task file of tinypool's child_process pool in the bench (bench/processes.js): the lab's task
// runner; crash:CODE ends this process, as in the lab's own pool.
import { timedRun } from '../../servers/lib/task.js'
import { crashEndsProcess } from '../../servers/lib/workloads.js'

crashEndsProcess()

export default function run (work) {
  return timedRun(work)
}
