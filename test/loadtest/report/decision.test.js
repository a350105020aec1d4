// The decision block (report/decision.js) in the three outputs: the terminal's text, the Markdown's first
// section, the page's first screen with the capacity-against-target chart.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { decide } from '../../../loadtest/result/decision.js'
import { decisionText } from '../../../loadtest/report/decision.js'
import { decisionLines } from '../../../loadtest/text/decision.js'
import { renderMarkdown } from '../../../loadtest/report/markdown.js'
import { renderReportHtml } from '../../../loadtest/report/page.js'
import { httpReport } from '../../fixtures/reports.js'

// A capacity result at several targets ([sloMs, pass, fail]), on the fixture's machine.
function capResult (base, server, targets, extra = {}) {
  const t = targets.map(([sloMs, pass, fail]) => ({
    sloMs, rps: pass, bracket: { pass, fail }, bound: pass === null ? 'cannot-meet' : 'refined', percentile: 99
  }))
  const capacity = {
    sloMs: t[0].sloMs,
    sloRule: '5 × the calibrated service time (20 ms)',
    serviceMs: 20,
    percentile: 99,
    capacity: { ...t[0] },
    targets: t
  }
  return { ...base, ...extra, key: `${server}@loop:3e7#capacity`, server, capacity }
}

function capacityReport () {
  const report = httpReport()
  const base = report.results[0]
  report.experiment = 'capacity'
  report.results = [
    capResult(base, 'cluster', [[100, 90, 94], [200, 95, 99], [400, 100, 104]], { trusted: true, untrusted: [] }),
    capResult(base, 'queued-threads', [[100, 60, 63], [200, 92, 96], [400, 150, 155]], { trusted: true, untrusted: [] }),
    capResult(base, 'child-process', [[100, null, 3], [200, null, 3], [400, 10, 12]], { trusted: true, untrusted: [] })
  ]
  report.decision = decide(report)
  return report
}

test('decision block: what to run, the plan rate with its headroom, the runner-up, where the answer changes, the machine', () => {
  const report = capacityReport()
  const text = decisionText(report.decision)
  assert.match(text, /^Decision\n/)
  const [, first, second] = text.split('\n')
  assert.equal(first, `  ${report.decision.command}`, 'the first line: the command alone, as a user pastes it')
  assert.match(first, /^ {2}node servers\/cluster --work \S+$/)
  assert.match(second, /^ {2}Plan rate +72 req\/s, 80 % of capacity \(20 % headroom\)$/, 'the plan rate on the next line')
  assert.match(text, /Capacity +cluster: 90 req\/s \(bracket 90–94\) at p99 ≤ 100 ms/)
  assert.match(text, /Runner-up +queued-threads: 60 req\/s .*brackets apart/)
  assert.match(text, /Would change +queued-threads@loop:3e7#capacity leads from 400 ms \(lines cross near p99 \d+(\.\d)? ms/)
  assert.match(text, /No capacity at p99 ≤ 100 ms +child-process@loop:3e7#capacity \(cannot meet the target\)/)
  assert.match(text, /Confirmed +not run/)
  assert.match(text, /Holds for +lab-box/)
  // whose target: the lab's default (5 × this machine's service time) said so, the user's --slo quoted
  assert.match(text, /Target +p99 ≤ 100 ms: 5 × the service time measured on this machine \(20 ms\), not a target of yours; give yours with --slo MS/)
  const own = { ...report.decision, target: { ...report.decision.target, own: true } }
  assert.match(decisionText(own), /Target +p99 ≤ 100 ms, your own \(--slo\)/)
  // a --quick sweep judges p95, and its Target line says so
  const quick = { ...report.decision, target: { ...report.decision.target, percentile: 95 } }
  assert.match(decisionText(quick), /Target +p95 ≤ 100 ms: 5 × the service time/)
  assert.match(decisionText(quick), /Capacity +cluster: 90 req\/s \(bracket 90–94\) at p95 ≤ 100 ms/)
  // a tie on capacity between strategies names one all the same, and offers the other's command
  const capacity = { ...report.results[0].capacity }
  const tiedWith = (extra) => ({ ...report.results[1], key: 'simple@x#capacity', server: 'simple', capacity, ...extra })
  const tied = decisionText(decide({ ...report, results: [report.results[0], tiedWith({})] }))
  assert.match(tied, /^Decision\n {2}node servers\/simple --work \S+\n {2}Plan rate +72 req\/s/)
  assert.match(tied, /Decided by +tie on capacity, broken by the simpler strategy \(simple before cluster\)/)
  assert.match(tied, /Alternative +tied on capacity: node servers\/cluster --work \S+\n/)
  assert.match(tied, /Would change +the same tie at every target measured/)
  // the one it names was disturbed: a refusal, with no command and no plan rate
  const untrusted = tiedWith({ trusted: false, untrusted: ['disturbed: steal 9 % > 5 %'] })
  const refused = decide({ ...report, results: [report.results[0], untrusted] })
  const lines = decisionLines(refused)
  assert.equal(lines[0].label, 'No recommendation')
  assert.match(lines[0].text, /\(disturbed\)$/)
  const offers = (l) => l.label === 'Plan rate' || l.label === 'Alternative' || l.command
  assert.ok(!lines.some(offers), 'a refusal gives no command, no alternative and no plan rate')
  // a decision kept before it carried a command names the configuration on its Run line
  assert.match(decisionText({ ...report.decision, command: undefined }), /^Decision\n {2}Run +cluster\n {2}Plan rate/)
})

test('decision block: the Markdown\'s first section and the page\'s first screen, with the capacity-against-target chart', () => {
  const report = capacityReport()
  const md = renderMarkdown(report, null)
  const sections = md.split('\n').filter((l) => l.startsWith('## '))
  assert.equal(sections[0], '## Decision')
  // the command alone in a fenced block a reader copies whole, the plan rate first under it
  assert.ok(md.includes(`## Decision\n\n\`\`\`sh\n${report.decision.command}\n\`\`\`\n\n- **Plan rate:** 72 req/s, 80 % of capacity`))
  const html = renderReportHtml(report)
  const at = html.indexOf('data-decision="recommended"')
  assert.ok(at > 0 && at < html.indexOf('class="cards"'), 'the decision before the machine and method cards')
  const command = /<section [^>]*data-decision="recommended"><h2>Decision<\/h2><pre class="decision-command"[^>]*><code>([^<]*)<\/code><\/pre><ul><li><b>Plan rate:<\/b>/.exec(html)
  assert.equal(command?.[1], report.decision.command, 'the page: the command alone first, the plan rate next')
  const chart = /data-chart="targets" data-lines="(\d+)"/.exec(html)
  assert.ok(chart, 'the capacity-against-target chart')
  assert.equal(chart[1], '3', 'one line per strategy')
  assert.ok(html.indexOf('data-chart="targets"') < html.indexOf('class="cards"'))
  // a report without a decision (every other experiment) shows none
  const plain = httpReport()
  assert.doesNotMatch(renderMarkdown(plain, null), /## Decision/)
  assert.doesNotMatch(renderReportHtml(plain), /data-decision/)
})

test('decision block: a tie at the looser target is not called a lead; past capacity in one line', () => {
  const report = capacityReport()
  const tie = { ...report.decision, changes: [{ fromMs: 100, toMs: 400, from: 'a', to: 'b', atMs: null, tie: true, brackets: ['79.3–85.4', '79.3–85.4'] }] }
  const text = decisionText(tie)
  assert.match(text, /Would change +a and b tie from 400 ms on \(brackets 79.3–85.4 and 79.3–85.4 req\/s overlap\); a leads at 100 ms/)
  assert.doesNotMatch(text, /b leads/)
  // tied at the first target and at every other: no 'leader' anywhere
  const tiedThroughout = { ...report.decision, changes: [], refused: { reason: 'tie', keys: ['a', 'b'], brackets: [], lean: null } }
  assert.match(decisionText(tiedThroughout), /Would change +the same tie at every target measured/)
  assert.match(decisionText({ ...report.decision, changes: [] }), /Would change +the same leader at every target measured/)
  const past = {
    ...report.decision,
    pastText: 'queued-threads (unbounded queue) collapses past capacity: goodput 0 % at 1.5 ×, recovery 44 s; with --deadline auto --slo 123 it keeps 86 %',
    pastCapacity: { goodputShare: { 1.5: 0.9, 2: 0.86 }, shedShare: 0.57, recoverySec: 0, collapses: false }
  }
  assert.match(decisionText(past), /Past capacity +queued-threads \(unbounded queue\) collapses .* it keeps 86 % \(goodput 90 % at 1.5 ×, 86 % at 2 × C, 57 % shed at the last; recovery 0 s\)\n/)
  // the page's caption says the same rule
  assert.match(renderReportHtml(report), /Where two lines cross with their brackets apart, the better choice changes with the target; where the brackets overlap, the two tie/)
})
