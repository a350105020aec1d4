// The lab's text formatters, one module: the figures of the outputs (terminal table, Markdown, HTML,
// compare, the bench, the progress line, the experiments' own tables) are written by the functions here,
// as plain strings, with MISSING for a missing value. The HTML side formats here, then escapes (escape.js
// esc) and puts its marked-up dash where it gets MISSING (html.js).
import { isNum, roundTo } from '../result/stats.js'

// The one sign of a missing value (not measured, not applicable) in every text output. A figure the
// run's runtime cannot measure is another thing, shown as table.js UNMEASURED with its reason.
export const MISSING = '-'

// A value no figure can be made of: null, undefined or NaN.
const absent = (x) => x === null || x === undefined || Number.isNaN(x)

// A number with thousands grouped and `digits` decimals; MISSING when missing.
export function fixedGrouped (value, digits) {
  if (!isNum(value)) return MISSING
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

// A number grouped, an integer without decimals and any other with `digits`; MISSING when missing.
export function numGrouped (value, digits = 1) {
  if (!isNum(value)) return MISSING
  return Number.isInteger(value) ? value.toLocaleString('en-US') : fixedGrouped(value, digits)
}

// Milliseconds with the precision that suits their size (0.076, 4.21, 42.1, 4,200); MISSING when missing.
export function msGrouped (value) {
  if (!isNum(value)) return MISSING
  const a = Math.abs(value)
  return fixedGrouped(value, a === 0 ? 0 : a < 1 ? 3 : a < 10 ? 2 : a < 100 ? 1 : 0)
}

// Milliseconds to about three significant figures (the dispatch study's table); MISSING when missing.
export function fmtMs3 (ms) {
  if (absent(ms)) return MISSING
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)
}

// Milliseconds as a short string: 0.4, 12.3, 456, 12.3s.
export function fmtMs (x) {
  if (absent(x)) return MISSING
  if (x >= 10000) return `${(x / 1000).toFixed(1)}s`
  if (x >= 100) return String(Math.round(x))
  return x.toFixed(1)
}

// A number with `digits` decimals; MISSING when missing.
export function fmtNum (x, digits = 1) {
  return absent(x) ? MISSING : Number(x).toFixed(digits)
}

// Bytes as whole mebibytes (64M); MISSING when missing.
export function fmtMb (bytes) {
  return absent(bytes) ? MISSING : `${Math.round(bytes / 1048576)}M`
}

// A count; MISSING when missing.
export function fmtCount (x) {
  return absent(x) ? MISSING : String(x)
}

// A ratio as a whole percentage; MISSING when missing.
export function fmtPct (x) {
  return absent(x) ? MISSING : `${Math.round(x * 100)}%`
}

// A ratio as a whole percentage with a space, as the decision writes it (70 %); MISSING when missing.
export function pctSpaced (x) {
  return absent(x) ? MISSING : `${Math.round(x * 100)} %`
}

// Bytes as whole mebibytes with a space, as the decision writes them (90 MB); MISSING when missing.
export function mbSpaced (bytes) {
  return absent(bytes) ? MISSING : `${Math.round(bytes / 2 ** 20)} MB`
}

// A ratio a / b as ×N.NN; MISSING when either side is missing or zero.
export function fmtRatio (a, b) {
  if (!(a > 0) || !(b > 0)) return MISSING
  return `×${(a / b).toFixed(2)}`
}

// A ratio 0..1 as a percentage with `digits` decimals (12%, 12.5%); MISSING when missing.
export function pctFixed (value, digits = 0) {
  return isNum(value) ? `${(value * 100).toFixed(digits)}%` : MISSING
}

// Bytes as MiB, or GiB with one decimal from 1 GiB (512 MiB, 1.5 GiB); MISSING when missing.
export function mibGib (value) {
  if (!isNum(value)) return MISSING
  if (value >= 2 ** 30) return `${(value / 2 ** 30).toFixed(1)} GiB`
  return `${(value / 2 ** 20).toFixed(0)} MiB`
}

// An ISO date as "2026-11-22 04:31:07 UTC"; any other string as it is, MISSING for a non-string.
export function utcWhen (iso) {
  if (typeof iso !== 'string') return MISSING
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?Z$/.exec(iso)
  return m ? `${m[1]} ${m[2]} UTC` : iso
}

// A ratio as a multiple, `digits` decimals and grouped (1.23×, 1,234.00×); MISSING when missing.
export function timesGrouped (value, digits = 2) {
  return isNum(value) ? `${fixedGrouped(value, digits)}×` : MISSING
}

// A latency in ms (msGrouped), or in multiples of the service time when `units` is 'service' (2.35×,
// 12.5×); MISSING when missing.
export function latencyGrouped (value, units) {
  if (!isNum(value)) return MISSING
  return units === 'service' ? timesGrouped(value, Math.abs(value) < 10 ? 2 : 1) : msGrouped(value)
}

// A relative change 0..1 as a signed percentage with `digits` decimals (+12.5%, -3.0%); MISSING when missing.
export function signedPct (value, digits = 1) {
  return isNum(value) ? `${value >= 0 ? '+' : ''}${(value * 100).toFixed(digits)}%` : MISSING
}

// A rate in requests/s: whole from 100, one decimal below (1234, 42.5); MISSING when missing.
export function fmtRps (x) {
  if (absent(x)) return MISSING
  return x >= 100 ? String(Math.round(x)) : x.toFixed(1)
}

// Milliseconds as seconds with one decimal (1.2s), the progress line's clock; MISSING when missing.
export function fmtSeconds (ms) {
  return absent(ms) ? MISSING : `${(ms / 1000).toFixed(1)}s`
}

// Milliseconds with their unit, as seconds from 1 s (12.3 ms, 1.23 s); MISSING when missing.
export function msOrSeconds (ms) {
  if (absent(ms)) return MISSING
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`
}

// Bytes in decimal units, as many digits as they take (512 B, 64 kB, 1.5 MB); MISSING when missing.
export function bytesDecimal (n) {
  if (absent(n)) return MISSING
  return n >= 1e6 ? `${n / 1e6} MB` : n >= 1e3 ? `${n / 1e3} kB` : `${n} B`
}

// A number rounded to `digits` decimals, as few as it needs (12.3, 12, 0.05); MISSING when missing.
export function fmtRounded (x, digits = 2) {
  return isNum(x) ? String(roundTo(x, digits)) : MISSING
}
