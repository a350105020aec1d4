// Escaping for each output kind, in one place: text that reaches an HTML page, a Markdown page or a
// terminal can come from a user (--label), a server (a --url server's strategy name) or a failure (stderr
// lines), so it is never printed raw. Formatting a figure is format.js's; an output escapes what format.js gives it.

const HTML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

// Any value for HTML text or a quoted attribute: & < > " ' as entities; null and undefined become ''.
export function esc (value) {
  if (value === null || value === undefined) return ''
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])
}

// Terminal control sequences (CSI … final byte, OSC … BEL/ST) and other control characters but tab,
// and the Unicode controls that reorder or break a line (bidi overrides and isolates, U+2028/U+2029).
/* eslint-disable no-control-regex */
const CONTROL = new RegExp([
  /\x1b\[[0-?]*[ -/]*[@-~]/.source,
  /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/.source,
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.source
].join('|'), 'g')
/* eslint-enable no-control-regex */

// Text for a terminal: control sequences and characters removed, newlines folded to spaces.
export function termText (value) {
  if (value === null || value === undefined) return ''
  return String(value).replace(/\r?\n|[\u2028\u2029]/g, ' ').replace(CONTROL, '')
}

// A name quoted for a terminal line: one line, no control characters, between backticks.
export function termCode (value) {
  return '`' + termText(value).replaceAll('`', "'") + '`'
}

// Text for a Markdown paragraph or table cell: one line, no control characters, Markdown's own
// characters escaped (a `|` cannot end a cell, a `<script>` is shown, not parsed).
export function mdText (value) {
  return termText(value).replace(/([\\|*_`[\]<>#])/g, '\\$1')
}

// Text for a Markdown code span: one line, no control characters, backticks replaced (a span cannot
// hold its own delimiter), and `|` escaped so that a span inside a table cell stays in its cell.
export function mdCode (value) {
  return '`' + termText(value).replaceAll('`', "'").replaceAll('|', '\\|') + '`'
}

// Lines for a fenced Markdown block: control characters removed, and a fence longer than any run of
// backticks inside, so no line can close it early. Returns the block's lines, fences included.
export function mdFence (lines) {
  const clean = lines.map((l) => String(l ?? '').replace(CONTROL, ''))
  const longest = Math.max(2, ...clean.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((r) => r.length))))
  const fence = '`'.repeat(longest + 1)
  return [fence, ...clean, fence]
}
