// Makes sure a Chromium is there for the browser tests (playwright-core drives it); runs before `npm test`.
//
// Found (scripts/chromium.js): LOADLAB_CHROMIUM, Debian's /usr/bin/chromium, playwright-core's own
// browser, or Chrome/Chromium as a macOS app. When none is there on Linux as root with apt-get, installs
// Debian's `chromium` package (the project's own way to get its test browser: playwright's download
// cannot work on a closed network). Otherwise says what was tried and what to run, and exits 1.
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { chromiumCandidates } from './chromium.js'

function run (cmd, args) {
  const r = spawnSync(cmd, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  })
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`)
}

const candidates = chromiumCandidates()
if (!candidates.some((p) => existsSync(p))) {
  const apt = process.platform === 'linux' && !process.env.LOADLAB_CHROMIUM && existsSync('/usr/bin/apt-get')
  if (!apt || process.getuid?.() !== 0) {
    const how = apt
      ? 'sudo apt-get update && sudo apt-get install -y chromium'
      : 'npx playwright-core install chromium, or set LOADLAB_CHROMIUM to a Chromium or Chrome binary'
    console.error(`ensure-chromium: no Chromium for the browser tests (tried ${candidates.join(', ')}); ${how}`)
    process.exit(1)
  }
  console.error('ensure-chromium: installing Debian chromium for the browser tests (apt-get)…')
  run('apt-get', ['update', '-qq'])
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'])
  if (!existsSync('/usr/bin/chromium')) {
    console.error('ensure-chromium: apt-get finished but /usr/bin/chromium is still missing')
    process.exit(1)
  }
}
