// The service time of each work the docs name, from the reference report that measured it: the one place a
// page states one (docs/servers.md, between its service-times markers). test/scripts/service-times.test.js
// fails when the page differs from what this script makes.
//   node scripts/service-times.js           write the table into docs/servers.md
//   node scripts/service-times.js --check   exit 1 when docs/servers.md's table is not what it would write
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { runMain, usageError } from '../loadtest/errors.js'
import { readBounded } from '../loadtest/report/read.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const PAGE = `${ROOT}docs/servers.md`
const BEGIN = '<!-- service-times: node scripts/service-times.js -->'
const END = '<!-- /service-times -->'

// Each work the docs use, and the reference report whose calibration measured it (2 cores, Node 20).
export const WORKS = [
  ['loop:1e6', 'reports/reference/validate-matrix/simple-loop_1e6-brute.json'],
  ['loop:1e7', 'reports/reference/tours/2026-11-26T13-52-26Z-vm-tour.json.gz'],
  ['loop:3e7', 'reports/reference/2026-11-26T16-16-56Z-vm-capacity.json.gz'],
  ['loop:1e8', 'reports/reference/2026-11-26T14-10-14Z-vm-heavy-cpu.json.gz']
]

// The table: one row per work, its service time (the calibration's serviceMs, 1 decimal) and its report.
export function serviceTable (root = ROOT) {
  const rows = WORKS.map(([work, file]) => {
    const ms = JSON.parse(readBounded(`${root}${file}`)).calibration?.[work]?.serviceMs
    if (typeof ms !== 'number') throw new Error(`${file}: no calibration of ${work}`)
    return `| \`${work}\` | ${ms.toFixed(1)} ms | [${file.split('/').pop().replace(/\.json(\.gz)?$/, '')}](../${file}) |`
  })
  return [BEGIN, '| work | service time | measured in |', '| --- | --- | --- |', ...rows, END].join('\n')
}

// The page with its table replaced by `table`; throws when the markers are missing.
export function withTable (page, table) {
  const a = page.indexOf(BEGIN)
  const b = page.indexOf(END)
  if (a < 0 || b < a) throw new Error(`docs/servers.md: no ${BEGIN} … ${END} block`)
  return page.slice(0, a) + table + page.slice(b + END.length)
}

async function main (argv) {
  if (argv.some((a) => a !== '--check')) throw usageError('usage: node scripts/service-times.js [--check]')
  const page = readFileSync(PAGE, 'utf8')
  const next = withTable(page, serviceTable())
  if (argv.includes('--check')) return next === page ? 0 : 1
  writeFileSync(PAGE, next)
  return 0
}

runMain(import.meta.url, 'service-times', main)
