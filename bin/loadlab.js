#!/usr/bin/env node
// `loadlab`: the lab as a command, for a project that installs it (npx loadlab) as for its checkout.
//   loadlab [lab options]            the lab (npm run lab -- …): every option, see loadlab --help
//   loadlab URL [lab options]        the lab on that URL (--url URL), as `npx autocannon URL`
//   loadlab compare|merge …          npm run compare / npm run merge
//   loadlab ab A B …                 npm run ab: two versions of one thing in paired blocks, decided
//   loadlab history DIR…             npm run history: every report in the folders as series, change points
//   loadlab fanout -w HOSTS …        npm run fanout: one shard per host through pdsh, merged
//   loadlab server NAME [flags]      one server of the fleet, by hand, until Ctrl-C
//   loadlab --version | help
// Relative paths are from the directory the command is typed in (loadtest/paths.js).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, catalog } from '../loadtest/catalog.js'
import { runMain, usageError } from '../loadtest/errors.js'

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

const HELP = `Usage: loadlab [lab options]          run the lab (loadlab --help lists every option)
       loadlab URL [lab options]      load your service at URL (the same as --url URL)
       loadlab compare A.json B.json …   compare reports
       loadlab merge A.json B.json …     merge the reports of the shards of one plan
       loadlab ab A B …                  A against B in paired blocks until decided
       loadlab history DIR…              reports as series, with their change points
       loadlab fanout -w HOSTS …         run one plan as a shard per host through pdsh
       loadlab server NAME [flags]       start one server by hand (loadlab server NAME --help), e.g.
                                         loadlab server queued-threads --port 3000 --task ./t.js
       loadlab --version                 the version of loadlab
       loadlab help                      this text

Each command's options: loadlab COMMAND --help. Relative paths (--task, --input @FILE, --out,
--node PATH, report files) are from the directory you run it in; reports go to ./loadlab-reports/
unless --out says otherwise (reports/ in the lab's own checkout).
`

const COMMANDS = ['compare', 'merge', 'ab', 'history', 'fanout', 'server', 'help']

// A usage error of the bin itself: one line, exit 2 (runMain prints it).
function refuse (message) {
  throw usageError(message)
}

// `loadlab server NAME [flags]`: the server's own process (cluster servers fork from their entry file),
// in its own process group with an IPC channel as the lab starts them: a terminal's Ctrl-C reaches this
// process, which passes it on once; if this process dies, the server sees the channel close and stops.
async function server ([name, ...flags]) {
  const servers = catalog().filter((s) => s.available)
  const names = servers.map((s) => s.name).join(', ')
  if (!name || name.startsWith('-')) return refuse(`server: expected a server name (${names})`)
  const entry = servers.find((s) => s.name === name)?.entry
  if (!entry) return refuse(`server: unknown server \`${name}\`; allowed: ${names}`)
  const stdio = ['inherit', 'inherit', 'inherit', 'ipc']
  const child = spawn(process.execPath, [entry, ...flags], { stdio, detached: true })
  const pass = (sig) => child.kill(sig)
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, pass)
  child.on('message', () => {}) // its ready line and samples are for a lab; the ready line is on stdout too
  const [code, signal] = await new Promise((resolve) => child.on('exit', (...end) => resolve(end)))
  return code ?? 128 + ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }[signal] ?? 0)
}

// What the first argument asks for: a subcommand, the version, help, or (an option, a URL or nothing) the lab.
async function runCommand (argv) {
  const [first, ...rest] = argv
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${pkg.version}\n`)
    return 0
  }
  if (first === 'help') {
    process.stdout.write(HELP)
    return 0
  }
  if (first === 'server') return server(rest)
  if (first === 'compare') {
    const { run } = await import('../loadtest/compare/cli.js')
    return run(rest)
  }
  if (first === 'merge') return mergeCommand(rest)
  if (first === 'ab') {
    const { run } = await import('../loadtest/ab/cli.js')
    return run(rest)
  }
  if (first === 'history') {
    const { run } = await import('../loadtest/history/cli.js')
    return run(rest)
  }
  if (first === 'fanout') {
    const { run } = await import('../loadtest/fanout/cli.js')
    return run(rest, { prog: 'loadlab fanout' })
  }
  if (first !== undefined && !first.startsWith('-') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(first)) {
    return refuse(`unknown command ${JSON.stringify(first.slice(0, 40))}; commands: ${COMMANDS.join(', ')}, or lab ` +
      'options (loadlab help)')
  }
  const help = first === '--help' || first === '-h'
  if (help) process.stdout.write(HELP + '\n')
  const { run } = await import('../loadtest/cli.js')
  return run(help ? ['--help'] : argv, { prog: 'loadlab' })
}

async function mergeCommand (argv) {
  const { run } = await import('../loadtest/merge/cli.js')
  return run(argv, { prog: 'loadlab merge' })
}

runMain(import.meta.url, 'loadlab', runCommand)
