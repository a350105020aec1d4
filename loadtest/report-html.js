// Renders one loadlab report (reports/README.md, schema 1) as a self-contained HTML page.
import { esc, num, page, table } from './html.js'

// Returns the HTML page (a string) for a report object.
export function renderReportHtml (report) {
  const m = report.machine ?? {}
  const title = `loadlab ${report.experiment ?? ''} — ${report.label ?? m.hostname ?? ''}`
  const rows = (report.results ?? []).map((r) => [
    esc(r.key),
    esc(r.status),
    num(r.rps),
    num(r.latency?.p50),
    num(r.latency?.p99),
    num(r.latency?.max),
    num(r.efficiency, 2),
    esc(r.trusted === false ? (r.untrusted ?? []).join('; ') : '')
  ])
  const body = `<main>
<h1>${esc(title)}</h1>
<p>${esc(m.cpuModel)} · ${esc(m.cores)} cores · Node ${esc(m.node)} · ${esc(report.createdAt)}</p>
<p><code>${esc(report.method?.command)}</code></p>
${table(['run', 'status', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'efficiency', 'untrusted'], rows)}
</main>`
  return page({ title, body })
}
