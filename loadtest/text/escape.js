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

// A CommonMark code span around one line of text, which it shows as it is: delimited by a run of backticks
// longer than any inside, with a space inside each end where the text starts or ends with a backtick or a
// space (a span strips one space from each end when both are there).
function codeSpan (text) {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length))
  const ticks = '`'.repeat(longest + 1)
  const pad = /^[` ]|[` ]$/.test(text) && /[^ ]/.test(text) ? ' ' : ''
  return ticks + pad + text + pad + ticks
}

// Text for a Markdown code span outside a table (a paragraph, a list item, a heading): one line, no control
// characters, every other character as it is (the command a report shows is the one that ran).
export function mdSpan (value) {
  return codeSpan(termText(value))
}

// Text for a Markdown code span in a table cell: as mdSpan, with `|` escaped so that the span stays in its
// cell (a GFM table takes `\|` as `|` inside a cell, code spans included, before it reads the span).
export function mdCode (value) {
  return codeSpan(termText(value).replaceAll('|', '\\|'))
}

// Lines for a fenced Markdown block: control characters removed, and a fence longer than any run of
// backticks inside, so no line can close it early. Returns the block's lines, fences included.
export function mdFence (lines) {
  const clean = lines.map((l) => String(l ?? '').replace(CONTROL, ''))
  const longest = Math.max(2, ...clean.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((r) => r.length))))
  const fence = '`'.repeat(longest + 1)
  return [fence, ...clean, fence]
}

// A CSV cell (RFC 4180) that a spreadsheet shows as text: control characters removed, line breaks folded,
// quoted where it holds a comma or a quote, and text that starts with = + - @ (a formula to a spreadsheet)
// led by a ' (OWASP's CSV injection rule). A number is written as it is.
export function csvCell (value) {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  const text = termText(value)
  const s = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text
  return /[",]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}

// JSON for stdout: JSON.stringify's, with the controls it leaves raw (C1, the bidi and line separators) as
// \u escapes, so that printed to a terminal no field can move the cursor or reorder a line; the data is unchanged.
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
export function jsonText (value, indent = 2) {
  return JSON.stringify(value, null, indent)
    .replace(JSON_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
