// The commit a run measured: `git rev-parse HEAD` in the folder the lab was run from, when that folder is in a
// git checkout. Cheap (one short git call, 2 s at most) and never failing a run: no git, no checkout, a
// timeout or anything odd gives null.
import { execFileSync } from 'node:child_process'

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/

// The checkout's HEAD commit in `cwd` (40 hex digits, 64 for a SHA-256 repository), or null.
export function gitCommit (cwd = process.cwd()) {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd,
      timeout: 2000,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' }
    }).trim()
    return SHA.test(out) ? out : null
  } catch {
    return null
  }
}
