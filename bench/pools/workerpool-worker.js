// The process of workerpool's process pool in the bench (bench/processes.js): the lab's task runner,
// registered as workerpool's method `run`; crash:CODE ends this process, as in the lab's own pool.
import workerpool from 'workerpool'
import { timedRun } from '../../servers/lib/task.js'
import { crashEndsProcess } from '../../servers/lib/workloads.js'

crashEndsProcess()
workerpool.worker({ run: (work) => timedRun(work) })
