// The lab's number formatters, one family. The text ones (terminal table, Markdown, the experiments' own
// tables) give strings with MISSING for a missing value; the grouped ones (fixedGrouped, msGrouped: locale
// digits, for the HTML pages and compare) give null for a missing value, and each output puts its own
// dash in its place (html.js the page's, compare's Markdown an em dash).
import { isNum } from '../result/stats.js'

// The one sign of a missing value (not measured, not applicable) in every text output. A figure the
// run's runtime cannot measure is another thing, shown as table.js UNMEASURED with its reason.
export const MISSING = '-'

// A number with thousands grouped and `digits` decimals; null when missing.
export function fixedGrouped (value, digits) {
  if (!isNum(value)) return null
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

// Milliseconds with the precision that suits their size (0.076, 4.21, 42.1, 4,200); null when missing.
export function msGrouped (value) {
  if (!isNum(value)) return null
  const a = Math.abs(value)
  return fixedGrouped(value, a === 0 ? 0 : a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0)
}

// Milliseconds to about three significant figures (the dispatch study's table); MISSING when missing.
export function fmtMs3 (ms) {
  if (ms === null || ms === undefined) return MISSING
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)
}

// Milliseconds as a short string: 0.4, 12.3, 456, 12.3s.
export function fmtMs (x) {
  if (x === null || x === undefined || Number.isNaN(x)) return MISSING
  if (x >= 10000) return `${(x / 1000).toFixed(1)}s`
  if (x >= 100) return String(Math.round(x))
  return x.toFixed(1)
}

// A number with `digits` decimals, '-' when missing.
export function fmtNum (x, digits = 1) {
  return x === null || x === undefined ? MISSING : Number(x).toFixed(digits)
}

// Bytes as whole mebibytes (64M), '-' when missing.
export function fmtMb (bytes) {
  return bytes === null || bytes === undefined ? MISSING : `${Math.round(bytes / 1048576)}M`
}

// A count, '-' when missing.
export function fmtCount (x) {
  return x === null || x === undefined ? MISSING : String(x)
}

// A ratio as a whole percentage, '-' when missing.
export function fmtPct (x) {
  return x === null || x === undefined || Number.isNaN(x) ? MISSING : `${Math.round(x * 100)}%`
}

// A ratio as ×N.NN, '-' when either side is missing or zero.
export function fmtRatio (a, b) {
  if (!(a > 0) || !(b > 0)) return MISSING
  return `×${(a / b).toFixed(2)}`
}
