// The one base for every path the user gives (--task, --input @file, --out, --node PATH, compare's and
// merge's files): the directory the user typed the command in. `npm run lab` (compare, merge, …) runs
// in the package root and says where the user was in INIT_CWD; `npx loadlab` and `node loadtest/cli.js`
// run where the user is.
import { isAbsolute, relative, resolve, sep } from 'node:path'
import { ROOT } from './catalog.js'

// The user's directory: INIT_CWD when npm moved us to the package root to run a script, else the cwd.
export function userCwd (env = process.env, cwd = process.cwd()) {
  const movedByNpm = Boolean(env.INIT_CWD && env.npm_lifecycle_event) && resolve(cwd) === ROOT
  return movedByNpm ? resolve(env.INIT_CWD) : cwd
}

// A path the user gave, absolute from their directory.
export function userPath (path, base = userCwd()) {
  return resolve(base, path)
}

// Where reports go without --out: reports/ of the lab's checkout when the user is inside it, else
// ./loadlab-reports/ in the user's own project (the lab installed as a dependency, run with npx).
export function defaultReportsDir (base = userCwd(), root = ROOT) {
  const rel = relative(root, resolve(base))
  const inside = !isAbsolute(rel) && rel.split(sep)[0] !== '..'
  const checkout = !root.split(sep).includes('node_modules')
  return inside && checkout ? resolve(root, 'reports') : resolve(base, 'loadlab-reports')
}
