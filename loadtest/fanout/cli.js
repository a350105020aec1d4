// `loadlab fanout` (npm run fanout --): one open-loop plan run as one shard per host through pdsh, merged
// into one report (fanout.js). Parses, calls runFanout, writes the merged report and the shards' own,
// prints a line per shard; exit 0, 99 when a threshold is crossed, 1 when a shard is missing (unless
// --allow-missing), 2 for a usage error.
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ROOT } from '../catalog.js'
import { numberOption, runCli, runMain, usageError } from '../errors.js'
import { userCwd } from '../paths.js'
import { defaultReportsDir, DEFAULTS } from '../settings.js'
import { experimentFor } from '../experiments/index.js'
import { writeReportFiles } from '../report/files.js'
import { checkWritableDir } from '../report/write.js'
import { THRESHOLD_EXIT, anyCrossed, parseThresholds, thresholdSummary } from '../report/thresholds.js'
import { mergedLine, shardLine, spreadLine } from '../text/fanout.js'
import { expandHosts } from './hosts.js'
import { takeHeaders } from './secrets.js'
import { commandText } from '../result/command.js'
import { DEFAULT_LEAD_SEC, LEAD_FACTOR, MIN_LEAD_SEC, runFanout } from './fanout.js'
import { optionLines, parseArgsOptions } from '../flags.js'

// The options (loadtest/flags.js): the parser, the help and docs/reference/options.md read them.
export const FLAGS = [
  {
    title: 'hosts',
    flags: [
      {
        name: 'hosts',
        short: 'w',
        arg: 'HOSTS',
        help: 'pdsh\'s list: a,b,c or gen[1-4] (one shard per host, in order)'
      },
      {
        name: 'rcmd',
        arg: 'ssh|exec',
        initial: 'ssh',
        help: 'pdsh\'s -R module: ssh to each host, or exec a local command'
      },
      {
        name: 'exec',
        arg: 'PREFIX',
        help: 'with --rcmd exec: the command before the shard\'s, %h the host (e.g. \'ip netns exec %h\')'
      },
      {
        name: 'dir',
        arg: 'DIR',
        initial: ROOT,
        default: 'this checkout',
        help: 'the lab\'s folder on each host'
      },
      {
        name: 'node',
        arg: 'PATH',
        default: 'node with ssh, this node with exec',
        help: 'node on each host'
      }
    ]
  },
  {
    title: 'plan',
    flags: [
      { name: 'url', arg: 'URL', help: 'the target every shard loads' },
      {
        name: 'rate',
        short: 'R',
        arg: 'R',
        help: 'the whole plan\'s rate (req/s), an open loop as the lab\'s -R; each shard sends R/N'
      },
      {
        name: 'duration',
        short: 'd',
        arg: 'SEC',
        default: DEFAULTS.duration,
        help: 'the plan\'s length'
      },
      { name: 'amount', short: 'a', arg: 'N', help: 'or its number of requests' },
      {
        name: 'lead',
        arg: 'SEC',
        default: `${LEAD_FACTOR} × the slowest host's answer to the clock pass, at least ${MIN_LEAD_SEC}; ` +
          `${DEFAULT_LEAD_SEC} with --no-clock`,
        help: 'start this far ahead'
      },
      { name: 'no-clock', help: 'do not read the hosts\' clocks against the target\'s Date header' }
    ]
  },
  {
    title: 'merge',
    flags: [
      {
        name: 'threshold',
        arg: 'EXPR',
        multiple: true,
        initial: [],
        help: 'on the merged figures, repeatable (exit 99 when crossed; see loadlab --help)'
      },
      {
        name: 'allow-missing',
        help: 'merge what came back when a shard failed; the report says which share is missing'
      },
      {
        name: 'out',
        arg: 'DIR',
        default: 'reports/; ./loadlab-reports/ outside a checkout',
        help: 'where the merged report goes'
      },
      { name: 'help', short: 'h', help: 'this text' }
    ]
  }
]

export const HELP = `usage: loadlab fanout -w HOSTS --url URL --rate R [-d SEC | -a N] [options] [-- LAB OPTIONS]

examples:
  loadlab fanout -w gen[1-4] --dir /opt/loadlab --url http://service:3000 --rate 40000 -d 60
  loadlab fanout --rcmd exec --exec 'ip netns exec %h' -w ns1,ns2,ns3 --url http://10.200.0.4:3000 \\
    --rate 300 -d 2 --threshold 'p99<50' -- --out /tmp/shards

Runs one shard of one open-loop plan per host through pdsh, all from one common start, and merges
their reports into one (histograms added, counts summed): shard I of N on the I-th host.

${optionLines(FLAGS, 22)}

After --, options for every shard's lab (e.g. --connections 32 --warmup 200 --out /tmp/shards).
Exit: 0; 99 a threshold crossed; 1 a shard missing (without --allow-missing); 2 usage;
130 interrupted.`

// The flags the fan-out sets on every shard itself.
const OWN = ['--url', '--rate', '--duration', '--amount', '--shard', '--start-at', '--json', '-d', '-R', '-a']

const OPTIONS = parseArgsOptions(FLAGS)

// argv → the plan runFanout takes (or { help: true }); a bad flag is a usage error (exit 2).
export function parseFanoutArgs (argv) {
  const cut = argv.indexOf('--')
  const own = cut === -1 ? argv : argv.slice(0, cut)
  const labArgs = cut === -1 ? [] : argv.slice(cut + 1)
  let values
  try {
    ({ values } = parseArgs({ args: own, options: OPTIONS, strict: true, allowPositionals: false }))
  } catch (err) {
    throw usageError(`${err.message.split('\n')[0]} (see --help)`)
  }
  if (values.help) return { help: true }
  const taken = labArgs.find((a) => OWN.includes(a.split('=')[0]))
  if (taken) throw usageError(`${taken} after --: the fan-out sets it on every shard itself`)
  if (!['ssh', 'exec'].includes(values.rcmd)) {
    throw usageError('--rcmd: expected ssh or exec, got ' +
    `${JSON.stringify(values.rcmd)}`)
  }
  if ((values.rcmd === 'exec') !== (values.exec !== undefined)) {
    throw usageError('--exec PREFIX goes with --rcmd ' +
    'exec, and --rcmd exec needs it')
  }
  if (!values.url) throw usageError('--url: expected the target every shard loads')
  if (values.duration !== undefined && values.amount !== undefined) throw usageError('-d and -a exclude each other')
  const hosts = expandHosts(values.hosts)
  const { args, header } = takeHeaders(labArgs) // -H goes to the shards with the URL, never on a command line
  return {
    hosts,
    rcmd: values.rcmd,
    prefix: values.exec ? values.exec.trim().split(/\s+/) : [],
    dir: values.dir,
    node: values.node ?? (values.rcmd === 'exec' ? process.execPath : 'node'),
    url: new URL(values.url).href,
    rate: numberOption('rate', values.rate, { min: 0.1 }),
    durationSec: values.amount === undefined
      ? numberOption('duration', values.duration ?? String(DEFAULTS.duration), { min: 0.1 })
      : null,
    amount: values.amount === undefined
      ? null
      : numberOption('amount', values.amount, { min: hosts.length, integer: true }),
    leadSec: values.lead === undefined ? null : numberOption('lead', values.lead, { min: 1 }),
    clock: !values['no-clock'],
    thresholds: parseThresholds(values.threshold),
    allowMissing: values['allow-missing'],
    out: values.out === undefined ? defaultReportsDir(userCwd(), ROOT) : resolve(values.out),
    labArgs: args,
    header,
    pdsh: 'pdsh',
    ssh: 'ssh'
  }
}

// The merged report and each shard's own (in <id>-shards/), written; returns writeReport's answer.
async function writeAll (result, out) {
  const { report, entries } = result
  const experiment = await experimentFor(report.experiment)
  const written = await writeReportFiles(report, { dir: out, experiment })
  const shardsDir = join(written.dir, `${written.id}-shards`)
  await mkdir(shardsDir, { recursive: true })
  for (const e of entries) await writeFile(join(shardsDir, e.file), e.text, { flag: 'wx' })
  return { ...written, shardsDir }
}

// fanout from argv to exit code.
export async function main (argv, { prog = 'loadlab fanout' } = {}) {
  const plan = parseFanoutArgs(argv)
  if (plan.help) {
    process.stdout.write(HELP + '\n')
    return 0
  }
  await checkWritableDir(plan.out).catch((err) => {
    throw usageError(`--out: cannot write reports into ${plan.out}: ${err.code ?? err.message}`)
  })
  const ac = new AbortController()
  const stop = () => ac.abort()
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    const say = (line) => process.stderr.write(`fanout: ${line}\n`)
    const command = commandText(prog.split(' '), argv)
    const result = await runFanout(plan, { signal: ac.signal, progress: say, command })
    const { report } = result
    const r = report.results[0]
    for (const s of report.method.shards) process.stderr.write(`${shardLine(s)}\n`)
    process.stderr.write(`${mergedLine(report.method.shards.length, r)}\n${spreadLine(r.start)}\n`)
    if (report.thresholds) process.stderr.write(thresholdSummary(report.thresholds) + '\n')
    const out = await writeAll(result, plan.out)
    process.stderr.write(`report: ${out.paths.join(', ')}\nshard reports: ${out.shardsDir}\n`)
    if (anyCrossed(report.thresholds)) return THRESHOLD_EXIT
    return out.fallback || out.errors.length ? 1 : 0
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  }
}

// main, with an error as one line (a stack for a bug); resolves the exit code.
export function run (argv, opts) {
  return runCli('fanout', () => main(argv, opts))
}

runMain(import.meta.url, 'fanout', (argv) => {
  process.chdir(userCwd())
  return main(argv, { prog: 'npm run fanout --' })
})
