// What a shard must not be given on its command line: the target URL (its user:password, a token in its
// query) and the -H headers (Authorization, Cookie). `ps` shows every process's arguments to every user of
// a host, so the fan-out hands them to each shard in a file only its user can read: written before the
// shard pass (mode 0600 in a directory of mode 0700, over ssh's stdin, or here with -R exec), read and
// removed by the shard's shell before node starts, and given to the lab in its environment
// (LOADLAB_SECRETS, readable by that user alone), which the lab reads and forgets.
import { randomBytes } from 'node:crypto'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { usageError } from '../errors.js'

export const SECRETS_ENV = 'LOADLAB_SECRETS'
// How long one host may take to take its file over ssh (ms).
const COPY_TIMEOUT_MS = 30_000

// The -H/--header values of the lab's options after `--`, taken out: { args (the rest), header }.
export function takeHeaders (labArgs) {
  const args = []
  const header = []
  for (let i = 0; i < labArgs.length; i++) {
    const w = labArgs[i]
    if ((w === '-H' || w === '--header') && i + 1 < labArgs.length) header.push(labArgs[++i])
    else if (w.startsWith('--header=')) header.push(w.slice(9))
    else if (/^-H./.test(w)) header.push(w.slice(2))
    else args.push(w)
  }
  return { args, header }
}

// The lab's words for the secrets in LOADLAB_SECRETS (`--url U -H 'K: V' …`), [] when it is not set; the
// variable is removed from `env` once read (the lab's children never see it). Malformed: a usage error.
export function secretArgs (env = process.env) {
  const text = env[SECRETS_ENV]
  if (text === undefined) return []
  delete env[SECRETS_ENV]
  let s
  try {
    s = JSON.parse(text)
  } catch {
    s = null
  }
  const strings = (a) => Array.isArray(a) && a.every((x) => typeof x === 'string')
  if (!s || typeof s !== 'object' || typeof s.url !== 'string' || !strings(s.header ?? [])) {
    throw usageError(`${SECRETS_ENV}: expected {"url": "…", "header": ["K: V", …]} (loadlab fanout writes it)`)
  }
  return ['--url', s.url, ...(s.header ?? []).flatMap((h) => ['-H', h])]
}

// The secrets of one fan-out: their text, and where each host keeps them (one directory per run and host,
// named by a random token: `${TMPDIR:-/tmp}/loadlab-TOKEN-HOST/secrets`).
export function shardSecrets ({ url, header }) {
  const token = randomBytes(12).toString('hex')
  return { text: JSON.stringify({ url, header }), dirName: (host) => `loadlab-${token}-${host}` }
}

// The shell words, before the shard's `cd DIR && exec node …`, that read the host's file into
// LOADLAB_SECRETS and remove it (`%h`: pdsh puts the host's name there). No secret in them.
export function readSecretsCommand (secrets) {
  const dir = `"\${TMPDIR:-/tmp}"/${secrets.dirName('%h')}`
  return `${SECRETS_ENV}="$(cat ${dir}/secrets)" && rm -rf ${dir} && export ${SECRETS_ENV} && `
}

// Each host's file, written before the shards start: here under -R exec (the hosts are commands run on
// this machine), over `ssh HOST` with the text on its stdin under -R ssh. Resolves [{ host, why }] of the
// hosts that could not take it.
export async function placeSecrets (plan, secrets) {
  const failed = []
  await Promise.all(plan.hosts.map(async (host) => {
    try {
      if (plan.rcmd === 'exec') await placeHere(secrets, host)
      else await placeOverSsh(plan.ssh ?? 'ssh', secrets, host)
    } catch (err) {
      failed.push({ host, why: err.message })
    }
  }))
  return failed
}

async function placeHere (secrets, host) {
  const dir = join(tmpdir(), secrets.dirName(host))
  await mkdir(dir, { mode: 0o700 }) // refuses a path that exists (one planted there)
  await writeFile(join(dir, 'secrets'), secrets.text, { mode: 0o600, flag: 'wx' })
}

async function placeOverSsh (ssh, secrets, host) {
  const dir = `"\${TMPDIR:-/tmp}"/${secrets.dirName(host)}`
  const command = `umask 077 && mkdir ${dir} && cat > ${dir}/secrets`
  const child = spawn(ssh, ['-oBatchMode=yes', host, command], { stdio: ['pipe', 'ignore', 'pipe'] })
  let said = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { said = (said + d).slice(-400) })
  child.stdin.on('error', () => {}) // an ssh that exits before reading: its exit code says why
  child.stdin.end(secrets.text)
  const timer = setTimeout(() => child.kill('SIGKILL'), COPY_TIMEOUT_MS)
  try {
    const [code, signal] = await Promise.race([once(child, 'close'), once(child, 'error').then(([e]) => { throw e })])
    const how = signal ? `killed by ${signal}` : `exit code ${code}`
    if (code !== 0) throw new Error(`ssh ${host}: ${how} ${said.trim()}`.trim())
  } finally {
    clearTimeout(timer)
  }
}

// Remove what a shard did not read (it failed before its shell ran): here, or over ssh, errors ignored.
export async function removeSecrets (plan, secrets, hosts) {
  await Promise.all(hosts.map(async (host) => {
    if (plan.rcmd === 'exec') return rm(join(tmpdir(), secrets.dirName(host)), { recursive: true, force: true })
    const remove = `rm -rf "\${TMPDIR:-/tmp}"/${secrets.dirName(host)}`
    const child = spawn(plan.ssh ?? 'ssh', ['-oBatchMode=yes', host, remove],
      { stdio: 'ignore' })
    const timer = setTimeout(() => child.kill('SIGKILL'), COPY_TIMEOUT_MS)
    await Promise.race([once(child, 'close'), once(child, 'error')]).catch(() => {})
    clearTimeout(timer)
  }))
}
