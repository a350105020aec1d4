// The ruler's child (index.js readRuler starts it): measures one reading of this machine (measure.js) and
// prints it as one JSON line on stdout. Run alone (`node loadtest/run/ruler/child.js`, under `taskset -c 0`
// for one core) it prints the reading a run would keep. Everything it starts ends before it does.
import { measureReading } from './measure.js'

process.stdout.write(JSON.stringify(await measureReading()) + '\n')
