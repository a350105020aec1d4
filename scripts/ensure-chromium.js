// Makes sure Debian's Chromium is installed for the browser tests (playwright-core drives it).
//
// Runs before `npm test`. If /usr/bin/chromium is missing and we are root, installs the `chromium`
// package with apt-get (the project's own way to get its test browser; playwright's own browser
// download cannot work on a closed network). Otherwise says what to run and exits non-zero.
import { existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'

export const CHROMIUM = '/usr/bin/chromium'

function run (cmd, args) {
  const r = spawnSync(cmd, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  })
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status}`)
}

if (!existsSync(CHROMIUM)) {
  if (process.getuid?.() !== 0) {
    console.error(
      `ensure-chromium: ${CHROMIUM} is missing; install it with: sudo apt-get update && sudo apt-get install -y chromium`
    )
    process.exit(1)
  }
  console.error('ensure-chromium: installing Debian chromium for the browser tests (apt-get)…')
  run('apt-get', ['update', '-qq'])
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'])
  if (!existsSync(CHROMIUM)) {
    console.error(`ensure-chromium: apt-get finished but ${CHROMIUM} is still missing`)
    process.exit(1)
  }
}
