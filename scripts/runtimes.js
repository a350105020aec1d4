// `npm run runtimes [-- node22 bun deno]`: install the runtimes this project provides (loadtest/run/watch/runtimes.js:
// the Node lines from the npm registry's `node` package, Bun and Deno from its `bun` and `deno` packages)
// into .runtimes/ and print each one's name, version and path; with none named, every provided one but
// the lab's own Node line. `--path NAME` prints only that runtime's path (installing it first if
// needed): `.ci/run` runs the suite under a Node line with it. Majors (22) still name Node lines.
import { OTHERS, PROVIDED, resolveRuntimes } from '../loadtest/run/watch/runtimes.js'
import { runMain, usageError } from '../loadtest/errors.js'

async function main (argv) {
  const only = argv[0] === '--path'
  const items = only ? argv.slice(1) : argv
  if (only && items.length !== 1) throw usageError('usage: node scripts/runtimes.js --path NAME')
  const own = process.versions.node.split('.')[0]
  const all = [...Object.keys(PROVIDED).filter((m) => m !== own).map((m) => `node${m}`), ...Object.keys(OTHERS)]
  const names = (items.length ? items : all).map((i) => (/^\d+$/.test(i) ? `node${i}` : i))
  const log = (line) => process.stderr.write(`${line}\n`)
  const runtimes = await resolveRuntimes(names, { flag: '--runtime', log })
  for (const r of runtimes) {
    process.stdout.write(only ? `${r.path}\n` : `${r.label}  ${r.name} ${r.version}  ${r.engine}  ${r.path}\n`)
  }
}

runMain(import.meta.url, 'runtimes', main)
