// Why a child process of the lab (a task's check or calibration, the ruler) ended without its answer, in
// words: its last line on stderr where it said one, else what its exit says (never execa's "Command failed").

// Exit codes Node gives a process itself: 13, a top-level await that never settled.
const NODE_EXITS = { 13: 'never settled a top-level await (its module loads forever: exit code 13)' }

// One line for `r` (an execa result: stderr, exitCode, signal), about `what` ('the task', 'the ruler').
export function childEndText (r, what = 'the task') {
  const line = String(r?.stderr ?? '').split('\n').filter((l) => l.trim()).at(-1)
  if (line) return line
  if (Object.hasOwn(NODE_EXITS, r?.exitCode)) return `${what} ${NODE_EXITS[r.exitCode]}`
  if (r?.signal) return `${what}'s process was ended by ${r.signal} before it answered`
  if (Number.isInteger(r?.exitCode)) {
    return `${what} ended its process with exit code ${r.exitCode} before it answered (a process.exit() in it?)`
  }
  return `${what} gave no answer`
}
