// The machine line every figure is printed under: the same machine block the lab's reports carry.
import { machine as labMachine } from '../loadtest/run/watch/machine.js'

// CPU, cores, memory, OS, Node and the versions of the tools the bench uses.
export async function machine () {
  return labMachine()
}
