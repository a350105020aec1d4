// The one base for every path the user gives (--task, --input @file, --out, --node PATH, compare's and
// merge's files): the directory the user typed the command in. `npm run lab` (compare, merge, …) runs
// in the package root and says where the user was in INIT_CWD; `npx loadlab` and `node loadtest/cli.js`
// run where the user is.
import { resolve } from 'node:path'
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
