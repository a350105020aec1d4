// A node:test reporter for `node test/run.js --times FILE`: each file's seconds (its top-level tests'
// durations added; a file's tests run one after another unless it asks otherwise), longest first, and
// the run's wall seconds: what test/run.js LONGEST_FIRST is ordered by.
export default async function * times (source) {
  const start = Date.now()
  const files = new Map()
  for await (const { type, data } of source) {
    if ((type !== 'test:pass' && type !== 'test:fail') || data?.nesting !== 0 || !data.file) continue
    files.set(data.file, (files.get(data.file) ?? 0) + (data.details?.duration_ms ?? 0))
  }
  for (const [file, ms] of [...files].sort((a, b) => b[1] - a[1])) {
    yield `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`
  }
  yield `${((Date.now() - start) / 1000).toFixed(1).padStart(7)} s  the whole run (wall)\n`
}
