// The HTML report: a pure function of a schema-1 report (test/fixtures/reports.js follows
// reports/README.md), self-contained, escaped, with charts rendered by Vega-Lite.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { renderReportHtml, runNames, wideSpread } from '../../../loadtest/report/page.js'
import {
  barSpec,
  dispatchSpec,
  renderSvg,
  renderSvgAsync,
  spectrumRows,
  spectrumSpec,
  spectrumX
} from '../../../loadtest/report/charts.js'
import { esc } from '../../../loadtest/text/escape.js'
import {
  dispatchReport, httpReport, httpResult, rulerFixture, rulerReading, urlReport
} from '../../fixtures/reports.js'

// The inner HTML of the <figure data-chart="name"> element, or null.
function chart (html, name) {
  const start = html.indexOf(`<figure class="chart" data-chart="${name}"`)
  if (start === -1) return null
  return html.slice(start, html.indexOf('</figure>', start))
}

function count (text, needle) {
  return text.split(needle).length - 1
}

// Every way a page could load something: scripts, stylesheets, images, frames, CSS urls, imports.
function externalRefs (html) {
  const refs = []
  for (const re of [
    /<script\b/gi,
    /<link\b/gi,
    /<iframe\b/gi,
    /<img\b/gi,
    /<[^>]+\ssrc\s*=/gi,
    /<[^>]+\shref\s*=/gi,
    /@import/gi,
    /url\(\s*(?!#)/gi,
    /https?:\/\//gi,
    /\/\/[a-z0-9.-]+\.[a-z]{2,}\//gi
  ]) {
    for (const m of html.matchAll(re)) refs.push(m[0])
  }
  return refs
}

test('the page states machine and method at the top, as a published benchmark does', () => {
  const r = httpReport()
  const html = renderReportHtml(r)
  const top = html.slice(0, html.indexOf('<h2>Latency</h2>'))
  assert.match(top, /<dt>label<\/dt><dd><b>fixture machine<\/b><\/dd>/)
  for (const text of [
    r.machine.cpuModel,
    r.machine.hostname,
    r.machine.node,
    r.machine.v8,
    'fastify 5.6.1',
    'piscina 5.1.3',
    'autocannon 8.0.0',
    'react 19.2.0',
    '7.8 GiB',
    r.machine.os.release,
    esc(r.method.command),
    '200 requests',
    '10 s',
    '20 requests',
    'fixture machine',
    '2026-11-22 04:31:07 UTC'
  ]) {
    assert.ok(top.includes(text), `top of page shows ${text}`)
  }
  assert.match(top, /<dt>connections<\/dt><dd>2<\/dd>/)
  assert.match(top, /<dt>runs<\/dt><dd>1<\/dd>/)
  assert.match(top, /data-status="failed"/)
})

test('the page is self-contained: no script, no stylesheet link, no URL of any kind', () => {
  for (const r of [httpReport(), dispatchReport()]) {
    const html = renderReportHtml(r)
    assert.deepEqual(externalRefs(html), [])
    assert.match(html, /<style>/)
    assert.ok(count(html, '<svg') >= 1)
  }
})

test('every string from the report is escaped, in the tables and inside the SVG charts', () => {
  const r = httpReport({ label: '<script>alert(1)</script>' })
  const evil = '&"\'<>'
  r.results[0].server = evil
  r.results[0].key = `${evil}@loop:1e5`
  r.results[2].untrusted = ['<img src=x onerror=alert(2)>']
  r.results[3].failure.stderrTail = ['</pre><script>alert(3)</script>']
  r.notes = ['<b>note</b>']
  r.machine.cpuModel = '<i>cpu</i>'
  r.method.command = 'node x --label "<script>"'
  r.calibration['loop:1e5'].spec = '<u>loop</u>'
  const html = renderReportHtml(r)
  for (const raw of ['<script', '<img', '<b>note', '<i>cpu', '<u>loop', evil]) { assert.ok(!html.includes(raw), `raw ${raw} must not appear`) }
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'))
  assert.ok(html.includes('&amp;&quot;&#39;&lt;&gt;@loop:1e5'), 'the server name is escaped in the table')
  // Vega escapes text and attributes itself: the legend carries the name, escaped.
  const spectrum = chart(html, 'spectrum')
  assert.match(spectrum, />&amp;"'&lt;&gt;@loop:1e5<\/text>/)
  assert.deepEqual(externalRefs(html), [])
})

test('one spectrum line per server run with percentiles, on the HdrHistogram axis', () => {
  const r = httpReport()
  const html = renderReportHtml(r)
  const spectrum = chart(html, 'spectrum')
  const drawable = r.results.filter((x) => x.status !== 'failed' && x.latency)
  assert.equal(drawable.length, 3)
  assert.equal(count(spectrum, 'aria-roledescription="line mark"'), drawable.length)
  assert.match(spectrum, new RegExp(`data-lines="${drawable.length}"`))
  for (const tick of ['0%', '90%', '99%', '99.9%', '99.99%', '99.999%']) { assert.ok(spectrum.includes(`>${tick}</text>`), `x tick ${tick}`) }
  assert.equal(spectrumX(0), 1)
  assert.ok(Math.abs(spectrumX(90) - 10) < 1e-9)
  assert.ok(Math.abs(spectrumX(99.9) - 1000) < 1e-6)
  const rows = spectrumRows(r.results[0].latency.percentiles, { run: 'a' })
  assert.equal(rows.length, 15)
  assert.ok(
    rows.every((p, i) => i === 0 || p.x > rows[i - 1].x),
    'x grows with the percentile'
  )
})

test('throughput, efficiency and the three p99s (client, /health probe, event loop) are charted', () => {
  const r = httpReport()
  const html = renderReportHtml(r)
  const ok = r.results.filter((x) => x.status !== 'failed')
  assert.match(chart(html, 'rps'), new RegExp(`data-bars="${ok.length}"`))
  assert.match(chart(html, 'efficiency'), new RegExp(`data-bars="${ok.length}"`))
  const delay = chart(html, 'delay')
  for (const legend of ['client latency p99', '/health probe p99', 'server event-loop delay p99']) { assert.ok(delay.includes(legend)) }
  // 3 metrics × 3 runs, each bar a rect-like path with an aria label naming its value
  assert.equal(count(delay, 'aria-roledescription="bar"'), 9)
})

test('failed runs show exit code and stderr tail; untrusted runs and tier shifts are flagged with reasons', () => {
  const r = httpReport()
  const html = renderReportHtml(r)
  const failed = html.slice(
    html.indexOf('data-flag="failed"'),
    html.indexOf('</div>', html.indexOf('data-flag="failed"') + 200) + 6
  )
  assert.match(failed, /child-process@loop:1e5 failed/)
  assert.match(failed, /exit code <code>1<\/code>/)
  assert.match(failed, /Error: listen EADDRINUSE/)
  assert.match(
    html,
    /data-flag="untrusted"[\s\S]*cluster@fib:20<\/b>: 12 timeouts; load generator saturated \(97% CPU\)/
  )
  assert.match(
    html,
    /<tr class="untrusted"><td class="text"><b>cluster@fib:20<\/b><span class="why">⚠ untrusted: 12 timeouts/
  )
  assert.match(html, /<tr class="failed"><td class="text"><b>child-process@loop:1e5<\/b><span class="why">✗ failed/)
  assert.equal(count(html, 'data-flag="tier-shift"'), 1, 'loop:1e5 has tierShift, fib:20 does not')
})

test('the results table has one row per run and shows null as a dash, never 0', () => {
  const r = httpReport()
  const html = renderReportHtml(r)
  const results = html.slice(
    html.indexOf('<table class="results">'),
    html.indexOf('</table>', html.indexOf('<table class="results">'))
  )
  assert.equal(count(results, '<tr') - 1, r.results.length)
  const failedRow = results.slice(results.indexOf('<tr class="failed">'))
  assert.ok(count(failedRow, 'title="not measured"') >= 10)
  assert.deepEqual(
    runNames([
      { key: 'a@w', work: 'w' },
      { key: 'a@w', work: 'w' }
    ]),
    ['a', 'a (2)']
  )
  assert.deepEqual(
    runNames([
      { key: 'a@w', work: 'w' },
      { key: 'b@v', work: 'v' }
    ]),
    ['a@w', 'b@v']
  )
  // a capacity report's runs share their loop too: `simple`, not `simple#capacity`
  assert.deepEqual(runNames([{ key: 'a@w#capacity', work: 'w' }, { key: 'b@w#capacity', work: 'w' }]), ['a', 'b'])
  assert.deepEqual(runNames([{ key: 'a@w#capacity', work: 'w' }, { key: 'b@w', work: 'w' }]), ['a#capacity', 'b'])
})

test('a --url report (outside: null, no telemetry, no calibration) renders and says outside sampling was off', () => {
  const html = renderReportHtml(urlReport())
  assert.match(html, /outside sampling<\/dt><dd><span class="warn-text">off<\/span>/)
  assert.match(html, /<code>http:\/\/127\.0\.0\.1:3000\/<\/code> <span class="muted">\(started by hand\)/)
  assert.match(html, /Efficiency not computed/)
  assert.match(html, /No calibration in this report/)
  assert.equal(count(chart(html, 'spectrum'), 'aria-roledescription="line mark"'), 1)
})

test('dispatch results get a chart of mean time by workers per mode and cost, a table, and the report table', () => {
  const r = dispatchReport()
  const html = renderReportHtml(r)
  const fig = chart(html, 'dispatch')
  assert.ok(fig)
  const pooled = r.results.filter((x) => x.workers > 0)
  assert.equal(count(fig, 'aria-roledescription="line mark"'), new Set(pooled.map((x) => `${x.mode}/${x.costMs}`)).size)
  // the main thread (workers 0) is one reference rule per hook cost
  assert.equal(
    count(fig, 'aria-roledescription="rule mark"'),
    new Set(r.results.filter((x) => x.mode === 'main').map((x) => x.costMs)).size
  )
  assert.ok(fig.includes('>hook 0 ms</text>') && fig.includes('>hook 1 ms</text>'))
  const dispatchTable = html.slice(html.indexOf('<table class="dispatch">'))
  assert.equal(count(dispatchTable.slice(0, dispatchTable.indexOf('</table>')), '<tr') - 1, r.results.length)
  const generic = html.slice(html.indexOf('<table class="generic">'))
  assert.match(generic, /<th>mode<\/th><th>pool start-up ms<\/th>/)
  assert.match(generic, /<td>piscina<\/td><td>12\.50<\/td>/)
  assert.ok(chart(html, 'spectrum') === null, 'no HTTP chart without HTTP runs')
})

test('odd reports still render: no results, partial status, missing machine fields', () => {
  const r = httpReport()
  r.results = []
  r.status = 'partial'
  r.finishedAt = null
  r.machine = { hostname: 'h' }
  r.calibration = null
  const html = renderReportHtml(r)
  assert.match(html, /data-status="partial"/)
  assert.match(html, /not finished/)
  assert.deepEqual(externalRefs(html), [])
})

test('the same report gives the same page (no global counters leak into element ids)', () => {
  const a = renderReportHtml(httpReport())
  renderReportHtml(dispatchReport())
  const b = renderReportHtml(httpReport())
  assert.equal(a, b)
  const ids = [...a.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1])
  assert.equal(new Set(ids).size, ids.length, 'element ids are unique in the page')
})

test("the synchronous SVG rendering equals vega's own view.toSVG()", async () => {
  const r = httpReport()
  const rows = r.results.flatMap((x) => spectrumRows(x.latency?.percentiles, { run: x.key }))
  const specs = [
    spectrumSpec(rows),
    barSpec(
      r.results.filter((x) => x.rps).map((x) => ({ run: x.key, value: x.rps })),
      { xTitle: 'req/s' }
    ),
    barSpec(
      [
        { run: 'a', metric: 'm1', value: 1 },
        { run: 'a', metric: 'm2', value: 2 }
      ],
      { group: 'metric', xTitle: 'ms', rule: 1 }
    ),
    dispatchSpec(
      dispatchReport().results.map((x) => ({
        mode: x.mode,
        workers: x.workers,
        cost: `c${x.costMs}`,
        payload: '30 B',
        meanMs: x.meanMs
      }))
    )
  ]
  for (const spec of specs) {
    assert.equal(renderSvg(spec, { id: 't' }), await renderSvgAsync(spec, { id: 't' }))
  }
})

test('many runs over several works: the spectrum becomes one panel per work, still one line per run', () => {
  const r = httpReport()
  r.results = []
  for (const work of ['fib:4', 'fib:20', 'sleep:10']) {
    for (const server of ['simple', 'queued-threads']) {
      for (const c of [1, 2, 4]) r.results.push(httpResult(server, { work, key: `${server}@${work}#c${c}` }))
    }
  }
  const html = renderReportHtml(r)
  const spectrum = chart(html, 'spectrum')
  assert.equal(count(spectrum, 'aria-roledescription="line mark"'), 18)
  for (const work of ['fib:4', 'fib:20', 'sleep:10']) { assert.ok(spectrum.includes(`>${work}</text>`), `panel header ${work}`) }
  assert.match(spectrum, /one panel per work spec/)
})

test('any single field of a report set to null still renders (a value that could not be measured is null)', () => {
  const base = httpReport()
  const paths = []
  const walk = (v, path) => {
    if (path.length) paths.push(path)
    if (v && typeof v === 'object' && !(path.length > 2 && Array.isArray(v) && typeof v[0] !== 'object')) {
      for (const k of Object.keys(v)) {
        if (path[0] === 'results' && path.length === 1 && k !== '0') continue // one run covers the result shape
        if (k === 'percentiles' || k === 'samples' || k === 'samplesMs' || k === 'processes') {
          paths.push([...path, k])
          continue
        }
        walk(v[k], [...path, k])
      }
    }
  }
  walk(base, [])
  assert.ok(paths.length > 100, `${paths.length} fields`)
  for (const path of paths) {
    const r = structuredClone(base)
    let o = r
    for (const k of path.slice(0, -1)) o = o[k]
    o[path.at(-1)] = null
    let html
    assert.doesNotThrow(
      () => {
        html = renderReportHtml(r)
      },
      `with ${path.join('.')} = null`
    )
    assert.match(html, /<\/html>\n$/)
  }
})

test('when one run is over 20× slower at p99 the spectrum switches to a log latency axis', () => {
  const r = httpReport()
  assert.ok(r.results[2].latency.p99 / r.results[1].latency.p99 > 20)
  assert.match(chart(renderReportHtml(r), 'spectrum'), /latency \(ms\), log scale<\/text>/)
  r.results = r.results.slice(0, 2)
  assert.match(chart(renderReportHtml(r), 'spectrum'), />latency \(ms\)<\/text>/)
  assert.equal(
    wideSpread([
      { run: 'a', p: 99, ms: 1 },
      { run: 'b', p: 99, ms: 20 }
    ]),
    false
  )
  assert.equal(
    wideSpread([
      { run: 'a', p: 99, ms: 1 },
      { run: 'b', p: 99, ms: 21 }
    ]),
    true
  )
})

test('the ruler: its line and table under the machine, a marked notice when it moved; none in an older report', () => {
  const quiet = { ...httpReport(), ruler: rulerFixture(rulerReading(), rulerReading()) }
  const html = renderReportHtml(quiet)
  assert.match(html, /<section class="block" id="ruler"><h2>Ruler<\/h2><p class="lead">2 cores offered, 1\.96 given · loop/)
  assert.equal(count(html, '<table class="ruler">'), 1)
  assert.doesNotMatch(html, /data-flag="ruler-moved"/)
  const moved = renderReportHtml({ ...httpReport(), ruler: rulerFixture(rulerReading(), rulerReading({ scale: 2 })) })
  assert.match(moved, /data-flag="ruler-moved"><h3>⚠ The machine moved during the run[^<]*single\.loop 2\.000×/)
  const early = renderReportHtml({ ...httpReport(), ruler: rulerFixture(rulerReading(), null) })
  assert.match(early, /no end reading: the run ended early/)
  assert.doesNotMatch(renderReportHtml(httpReport()), /id="ruler"/)
})
