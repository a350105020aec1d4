// `npm run runtimes [-- 22 24]`: install the Node runtimes this project provides (loadtest/run/runtimes.js
// PROVIDED, from the npm registry's `node` package) into .runtimes/ and print each one's path; with no
// majors, every provided one the lab's own node is not. `--path MAJOR` prints only that runtime's path
// (installing it first if needed): `.ci/run` runs the suite under it.
import { PROVIDED, resolveRuntimes } from '../loadtest/run/runtimes.js'
import { LabError, usageError } from '../loadtest/errors.js'

async function main (argv) {
  const only = argv[0] === '--path'
  const items = only ? argv.slice(1) : argv
  if (only && items.length !== 1) throw usageError('usage: node scripts/runtimes.js --path MAJOR')
  const own = process.versions.node.split('.')[0]
  const majors = items.length ? items : Object.keys(PROVIDED).filter((m) => m !== own)
  const log = (line) => process.stderr.write(`${line}\n`)
  const runtimes = await resolveRuntimes(majors, { log })
  for (const r of runtimes) process.stdout.write(only ? `${r.path}\n` : `${r.label}  ${r.node}  V8 ${r.v8}  ${r.path}\n`)
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`runtimes: ${err instanceof LabError ? err.message : err.stack}\n`)
  process.exit(2)
})
