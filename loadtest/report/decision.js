// The decision block (result/decision.js) as the terminal, the Markdown and the page show it: one short
// block, first in every output (the terminal's last, so it stays on screen). Its first line is the command
// to run, alone, so that it can be pasted as it is; the plan rate follows. Pure: decision in, text out.
// The lines themselves are text/decision.js decisionLines.
import { esc, mdFence, mdText, termText } from '../text/escape.js'
import { decisionLines } from '../text/decision.js'

// The block for the terminal: a title line, the command alone, then the labelled lines, aligned. `results`:
// the report's (a --url run's mix names each class's target: text/decision.js decisionLines).
export function decisionText (d, results = null) {
  const lines = decisionLines(d, results)
  if (!lines.length) return ''
  const labelled = lines.filter((l) => !l.command)
  const w = Math.max(0, ...labelled.map((l) => l.label.length))
  const line = (l) => (l.command ? `  ${termText(l.text)}` : `  ${l.label.padEnd(w)}  ${l.text}`)
  return ['Decision', ...lines.map(line)].join('\n') + '\n'
}

// The block as the Markdown's first section: the command in a fenced block of its own (a reader copies
// it whole), the other lines as a list.
export function decisionMarkdown (d, results = null) {
  const lines = decisionLines(d, results)
  if (!lines.length) return []
  const out = ['## Decision', '']
  for (const l of lines) {
    if (l.command) {
      const [open, ...rest] = mdFence([l.text])
      out.push(`${open}sh`, ...rest, '')
    } else out.push(`- **${mdText(l.label)}:** ${mdText(l.text)}`)
  }
  return [...out, '']
}

// The block as the page's first screen: the command in a block of its own, then the lines.
export function decisionHtml (d, results = null) {
  const lines = decisionLines(d, results)
  if (!lines.length) return ''
  const cls = d.refused ? 'notice' : 'notice info'
  const run = lines.filter((l) => l.command)
    .map((l) => '<pre class="decision-command" aria-label="the command to ' +
      `run"><code>${esc(l.text)}</code></pre>`).join('')
  const items = lines.filter((l) => !l.command).map((l) => `<li><b>${esc(l.label)}:</b> ${esc(l.text)}</li>`).join('')
  return `<section class="${cls} decision" ` +
    `data-decision="${d.refused ? 'refused' : 'recommended'}"><h2>Decision</h2>${run}<ul>${items}</ul></section>`
}
