// Small number formatters shared by the experiments' own tables (strings, '-' for missing values).

// Milliseconds as a short string: 0.4, 12.3, 456, 12.3s.
export function fmtMs (x) {
  if (x === null || x === undefined || Number.isNaN(x)) return '-'
  if (x >= 10000) return `${(x / 1000).toFixed(1)}s`
  if (x >= 100) return String(Math.round(x))
  return x.toFixed(1)
}

// A count, '-' when missing.
export function fmtCount (x) {
  return x === null || x === undefined ? '-' : String(x)
}

// A ratio as a whole percentage, '-' when missing.
export function fmtPct (x) {
  return x === null || x === undefined || Number.isNaN(x) ? '-' : `${Math.round(x * 100)}%`
}

// A ratio as ×N.NN, '-' when either side is missing or zero.
export function fmtRatio (a, b) {
  if (!(a > 0) || !(b > 0)) return '-'
  return `×${(a / b).toFixed(2)}`
}
