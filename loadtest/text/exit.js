// Why a child process of the lab (a task's check or calibration, the ruler) ended without its answer, in
// words: what Node's own exit code says, else its last line on stderr, else what its exit says (never execa's
// "Command failed").

// Exit codes Node gives a process itself: 13, a top-level await that never settled.
const NODE_EXITS = { 13: 'never settled a top-level await (its module loads forever: exit code 13)' }

// What Node's own exit code of `r` says, or null: it comes first, for its warning (Node 22 and later) ends in
// a source line and a caret.
export function nodeExitText (r, what = 'the task') {
  return Object.hasOwn(NODE_EXITS, r?.exitCode) ? `${what} ${NODE_EXITS[r.exitCode]}` : null
}

// One line for `r` (an execa result: stderr, exitCode, signal), about `what` ('the task', 'the ruler').
export function childEndText (r, what = 'the task') {
  const own = nodeExitText(r, what)
  if (own) return own
  const line = String(r?.stderr ?? '').split('\n').filter((l) => l.trim()).at(-1)
  if (line) return line
  if (r?.signal) return `${what}'s process was ended by ${r.signal} before it answered`
  if (Number.isInteger(r?.exitCode)) {
    return `${what} ended its process with exit code ${r.exitCode} before it answered (a process.exit() in it?)`
  }
  return `${what} gave no answer`
}
