// Summaries of repeated rounds: mean, min, max, relative standard deviation; median of ratios.

// { mean, min, max, rsd, samples } of a list of numbers (rsd: stddev / mean, a fraction).
export function summary (samples) {
  const n = samples.length
  const mean = samples.reduce((a, b) => a + b, 0) / n
  const variance = n > 1 ? samples.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) : 0
  return {
    mean,
    min: Math.min(...samples),
    max: Math.max(...samples),
    rsd: mean ? Math.sqrt(variance) / Math.abs(mean) : 0,
    samples
  }
}

// { median, min, max, samples } of per-round ratios a[i] / b[i].
export function ratios (a, b) {
  const samples = a.map((x, i) => x / b[i])
  const sorted = [...samples].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
  return { median, min: sorted[0], max: sorted[sorted.length - 1], samples }
}
