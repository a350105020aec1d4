// What a new user meets first: the help states the defaults a plain run really uses, --list each
// experiment's, a URL alone is --url, -H takes autocannon's K=V, the rate is -R in the lab and in fanout,
// and every mark of the terminal's table has its reason below it in the Markdown's words.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { join } from 'node:path'
import { execa } from 'execa'
import { HELP, parseOptions } from '../../loadtest/options.js'
import { resolvePlan } from '../../loadtest/plan.js'
import { defaultsText } from '../../loadtest/cli.js'
import custom from '../../loadtest/experiments/custom.js'
import { experimentFor, experimentNames } from '../../loadtest/experiments/index.js'
import { parseFanoutArgs, HELP as FANOUT_HELP } from '../../loadtest/fanout/cli.js'
import { renderText, reportTable, whyLines } from '../../loadtest/report/table.js'
import { renderMarkdown } from '../../loadtest/report/markdown.js'
import { untrustedReasons } from '../../loadtest/result/trust.js'
import { reasonText } from '../../loadtest/text/reasons.js'
import { mdText } from '../../loadtest/text/escape.js'
import { httpReport, httpResult } from '../fixtures/reports.js'
import { ROOT, readReport, tempDir } from '../helpers/lab.js'

// The default an option's help line states: `-a, --amount N … (default 200; …` → 200.
function stated (flag) {
  const line = HELP.split('\n').find((l) => l.includes(flag))
  const m = /\(default ([\d.]+)/.exec(line ?? '')
  assert.ok(m, `${flag}: no default in ${JSON.stringify(line)}`)
  return Number(m[1])
}

test('--server simple -c 2 with no -a or -d: the round size, warm-up and timeout are the ones --help states', () => {
  const plan = resolvePlan(parseOptions(['--server', 'simple', '-c', '2']), custom)
  assert.equal(plan.experimentName, 'custom')
  assert.deepEqual([plan.load.amount, plan.load.durationSec], [stated('--amount'), null])
  assert.equal(plan.load.warmup, stated('--warmup'))
  assert.equal(plan.load.timeoutSec, stated('--timeout'))
  assert.equal(plan.load.connections, 2)
  assert.equal(resolvePlan(parseOptions(['--server', 'simple']), custom).load.connections, stated('--connections'))
  assert.match(HELP, /--experiment NAME {7}an experiment/, 'an experiment, not a study')
})

test('--list: each experiment with its defaults, as the flags that change them', async () => {
  assert.equal(defaultsText(custom), `-c ${custom.defaults.connections} -a ${custom.defaults.amount} ` +
    `-t ${custom.defaults.timeoutSec} --warmup ${custom.defaults.warmup}; --quick: -a ${custom.quick.amount} ` +
    `--warmup ${custom.quick.warmup}`)
  for (const name of experimentNames()) {
    const e = await experimentFor(name)
    const text = defaultsText(e)
    if (e.defaults?.work) assert.ok(text.includes(`--work ${e.defaults.work}`), `${name}: ${text}`)
  }
  const r = await execa(process.execPath, [join(ROOT, 'loadtest', 'cli.js'), '--list'], { reject: false })
  assert.equal(r.exitCode, 0, r.stderr)
  assert.ok(r.stdout.includes(defaultsText(custom)), r.stdout)
})

test('autocannon\'s letters: a URL alone is --url, -H K=V is a header; -R is the rate in the lab and in fanout', () => {
  const alone = parseOptions(['http://127.0.0.1:3000/x?y=1', '-c', '10', '-d', '5'])
  const given = parseOptions(['--url', 'http://127.0.0.1:3000/x?y=1', '-c', '10', '-d', '5'])
  assert.deepEqual([alone.url, alone.connections, alone.duration], [given.url, 10, 5])
  const refused = (args, re) =>
    assert.throws(() => parseOptions(args), (err) => err.exitCode === 2 && re.test(err.message))
  refused(['simple'], /^unexpected argument `simple`/)
  refused(['http://a/', '--url', 'http://b/'], /^a URL given twice/)
  refused(['http://a/', 'http://b/'], /^unexpected argument `http:\/\/b\/`/)
  const h = parseOptions(['--url', 'http://127.0.0.1:1/', '-H', 'authorization=Bearer a=b', '-H', 'x-a: b=c'])
  assert.deepEqual(h.mix.requests[0].headers, { authorization: 'Bearer a=b', 'x-a': 'b=c' })
  assert.equal(parseOptions(['-R', '50']).rate, 50)
  const base = ['-w', 'a,b', '--url', 'http://127.0.0.1:3000/']
  assert.equal(parseFanoutArgs([...base, '-R', '100']).rate, 100)
  assert.equal(parseFanoutArgs([...base, '-R', '100', '--rcmd', 'exec', '--exec', 'env']).rcmd, 'exec')
  for (const help of [HELP, FANOUT_HELP]) assert.match(help, /^ {2}-R, --rate R .*open loop/m)
})

test('the terminal says why: a tour row marked ! beside a CPU hog prints its reason, in the Markdown\'s words', () => {
  // one request at a time on 2 cores, work 3 × slower, other processes at 0.9 core: a CPU hog beside it
  const noise = { stealPct: 0.3, foreignCores: 0.9, workInflation: 3, inFlight: 1, treeCores: 0.9, labCores: 0.1 }
  noise.cores = 2
  const requests = { sent: 150, completed: 150, errors: 0, timeouts: 0, non2xx: 0, mismatches: 0, unanswered: 0 }
  const reasons = untrustedReasons({ requests, loop: 'closed', mode: 'amount', latency: { p99: 80 }, noise, open: null })
    .map(reasonText)
  assert.ok(reasons.some((x) => /^disturbed: other processes used 0.9 cores/.test(x)), reasons.join('; '))
  const report = { ...httpReport(), experiment: 'tour' }
  report.results = [httpResult('simple', { work: 'loop:1e7' }),
    httpResult('cluster', { work: 'loop:1e7', trusted: false, untrusted: reasons })]
  const t = reportTable(report, null)
  const marked = t.rows.filter((row) => /^[!✗]/.test(row.at(-1)))
  assert.equal(marked.length, 1)
  const why = whyLines(report)
  assert.deepEqual(why, [`! cluster@loop:1e7: ${reasons.join('; ')}`])
  const md = renderMarkdown(report, null)
  assert.ok(md.includes(`- \`cluster@loop:1e7\`: ${mdText(reasons.join('; '))}`), md)
  assert.match(renderText(t), /! or ⚠ see the reasons/, 'the marks line under the table')
})

test('every mark of the fixture report\'s table has its line below it', () => {
  const report = httpReport()
  const rows = reportTable(report, null).rows.filter((row) => /^[!✗]/.test(row.at(-1)))
  assert.ok(rows.length >= 2, 'the fixture has an untrusted and a failed run')
  const why = whyLines(report)
  for (const row of rows) {
    assert.ok(why.some((l) => l.startsWith(`${row.at(-1)[0]} ${row[0]}`)), `${row[0]}: ` +
    `${why.join(' | ')}`)
  }
})

// A plain node:http service that counts what it gets.
async function countingService () {
  let count = 0
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      count++
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: `http://127.0.0.1:${server.address().port}/`, count: () => count, stop: () => new Promise((resolve) => server.close(resolve)) }
}

test('loadlab http://127.0.0.1:PORT -c 2 -a 20: 20 measured requests, after the warm-up --help ' +
  'states', { timeout: 90000 }, async () => {
  const service = await countingService()
  const out = await tempDir()
  try {
    const r = await execa(process.execPath, [join(ROOT, 'bin', 'loadlab.js'), service.url, '-c', '2', '-a', '20', '--out', out.dir],
      { reject: false, stdin: 'ignore', cwd: ROOT })
    assert.equal(r.exitCode, 0, r.stderr)
    const { json } = await readReport(out.dir)
    assert.equal(json.method.url, service.url)
    assert.equal(json.results[0].requests.sent, 20)
    // the service got the 20, the warm-up's, and the readiness and recovery requests: nothing else
    assert.equal(service.count(), 20 + stated('--warmup') + 2)
  } finally {
    await service.stop()
    await out.cleanup()
  }
})
