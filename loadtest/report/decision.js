// The decision block (result/decision.js) as the terminal, the Markdown and the page show it: one short
// block, first in every output (the terminal's last, so it stays on screen). Pure: decision in, text out.
// The lines themselves are text/decision.js decisionLines.
import { esc, mdText } from '../text/escape.js'
import { decisionLines } from '../text/decision.js'

// The block for the terminal: a title line and the labelled lines, aligned.
export function decisionText (d) {
  const lines = decisionLines(d)
  if (!lines.length) return ''
  const w = Math.max(...lines.map((l) => l.label.length))
  return ['Decision', ...lines.map((l) => `  ${l.label.padEnd(w)}  ${l.text}`)].join('\n') + '\n'
}

// The block as the Markdown's first section.
export function decisionMarkdown (d) {
  const lines = decisionLines(d)
  if (!lines.length) return []
  return ['## Decision', '', ...lines.map((l) => `- **${mdText(l.label)}:** ${mdText(l.text)}`), '']
}

// The block as the page's first screen.
export function decisionHtml (d) {
  const lines = decisionLines(d)
  if (!lines.length) return ''
  const cls = d.refused ? 'notice' : 'notice info'
  const items = lines.map((l) => `<li><b>${esc(l.label)}:</b> ${esc(l.text)}</li>`).join('')
  return `<section class="${cls} decision" data-decision="${d.refused ? 'refused' : 'recommended'}"><h2>Decision</h2><ul>${items}</ul></section>`
}
