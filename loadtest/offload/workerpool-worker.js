// A workerpool worker (thread or child process): the study-000 task's methods, registered by name.
import workerpool from 'workerpool'
import { ready, run } from './task.js'

workerpool.worker({ run, ready })
