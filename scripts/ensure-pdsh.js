// Makes sure pdsh is there for the fan-out's real run (test/loadtest/fanout/netns.test.js); runs before
// `npm test`, after ensure-chromium.js.
//
// That run needs root (it makes network namespaces), so pdsh is installed only where it can run: on
// Linux as root with apt-get, Debian's `pdsh` package (its exec and ssh rcmd modules). Elsewhere, or
// when apt-get fails, it says so and exits 0: the run skips with its reason and the rest of the suite goes on.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const has = () => !spawnSync('pdsh', ['-V'], { stdio: 'ignore' }).error

function apt (args) {
  const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  return r.error ? r.error.message : r.status === 0 ? null : `apt-get ${args.join(' ')} exited with ${r.status}`
}

if (!has()) {
  const root = process.platform === 'linux' && process.getuid?.() === 0
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.error('ensure-pdsh: no pdsh; the fan-out\'s namespace run needs root on Linux and skips here ' +
      '(to run it: sudo apt-get install -y pdsh, then npm test as root)')
  } else {
    console.error('ensure-pdsh: installing Debian pdsh for the fan-out\'s namespace run (apt-get)…')
    const failed = apt(['update', '-qq']) ?? apt(['install', '-y', '-qq', '--no-install-recommends', 'pdsh'])
    if (failed || !has()) console.error(`ensure-pdsh: pdsh not installed (${failed ?? 'not on PATH after apt-get'}); the namespace run will skip`)
  }
}
