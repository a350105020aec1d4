// The command that starts a configuration by hand, as a team would deploy it: `node servers/NAME FLAGS`
// in the lab's checkout, `loadlab server NAME FLAGS` in a project that runs the lab through its bin (a
// --task path there relative to the project). Pure: the decision (decision.js) writes it.
import { isAbsolute, relative, sep } from 'node:path'
import { redactArgs } from './redact.js'

// One shell word: as it is when it holds only safe characters (a # not first: no comment), else in single quotes.
export function shellWord (word) {
  const w = String(word)
  return /^[\w@%+=:,./-][\w@%+=:,./#-]*$/.test(w) ? w : `'${w.replaceAll("'", "'\\''")}'`
}

// A --task path as the user would type it in their project: relative to `cwd` when inside it.
function taskPath (path, cwd) {
  const [file, exp] = path.split('#')
  const rel = relative(cwd, file)
  if (!cwd || !isAbsolute(file) || rel.startsWith('..') || isAbsolute(rel)) return path
  return `.${sep}${rel}${exp === undefined ? '' : `#${exp}`}`
}

// The command line: `form` 'node' (the checkout) or 'loadlab' (the bin in a user's project, `cwd` theirs).
export function serverCommand ({ server, flags, form = 'node', cwd = null }) {
  const head = form === 'loadlab' ? ['loadlab', 'server', server] : ['node', `servers/${server}`]
  const words = flags.map((f, i) => (form === 'loadlab' && flags[i - 1] === '--task' ? taskPath(f, cwd) : f))
  return [...head, ...words].map(shellWord).join(' ')
}

// A command line as a report keeps it: `head` (the program's words) then `argv`, each a shell word, every
// secret in argv replaced by *** (result/redact.js redactArgs: URL user information, secret headers).
export function commandText (head, argv) {
  return [...head, ...redactArgs(argv)].map(shellWord).join(' ')
}
