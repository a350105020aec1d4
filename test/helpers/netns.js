// Network namespaces for the fan-out's real run (not a test file): N + 1 namespaces joined by a bridge on
// this machine, each with its own address in a /24 of 10.200.X.0 that this machine has no route to yet,
// the bridge holding .254 so the test (in the root namespace) reaches the target's /health. Made and
// removed with `ip`; nothing is routed off the machine (the namespaces have no default route).
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'

// Why the namespaces cannot be made here (a sentence), or null.
export function netnsUnavailable () {
  if (process.platform !== 'linux') return 'network namespaces are Linux only'
  if (process.getuid?.() !== 0) return 'making network namespaces needs root'
  const ip = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
  if (ip.error || ip.status !== 0) return `\`ip netns\` is not usable (${ip.error?.code ?? ip.stderr.trim()})`
  const pdsh = spawnSync('pdsh', ['-V'], { encoding: 'utf8' })
  if (pdsh.error) return 'pdsh is not installed (npm test installs it as root with apt-get: scripts/ensure-pdsh.js)'
  if (!/rcmd modules:.*\bexec\b/.test(`${pdsh.stdout}${pdsh.stderr}`)) return 'pdsh has no exec rcmd module'
  return null
}

function ip (...args) {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] })
}

// A /24 not on this machine yet: 10.200.X.0 with X drawn, tried a few times.
function freeSubnet () {
  const routes = execFileSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' })
  for (let i = 0; i < 20; i++) {
    const x = randomBytes(1)[0]
    if (!routes.includes(`10.200.${x}.`)) return `10.200.${x}`
  }
  throw new Error('no free 10.200.X.0/24 found')
}

// Make `count` namespaces (the shards' hosts) and one more (the target's): resolves { hosts, target:
// { name, address }, bridgeAddress, remove() }. remove() deletes every veth, the bridge and every
// namespace it made, whatever failed before; call it in a finally and a t.after.
export function makeNamespaces (count) {
  const tag = randomBytes(3).toString('hex')
  const subnet = freeSubnet()
  const made = { namespaces: [], links: [] }
  const remove = () => removeAll(made)
  try {
    const bridge = `llbr${tag}`
    ip('link', 'add', bridge, 'type', 'bridge')
    made.links.push(bridge)
    ip('addr', 'add', `${subnet}.254/24`, 'dev', bridge)
    ip('link', 'set', bridge, 'up')
    const names = [...Array.from({ length: count }, (_, i) => `ll${tag}s${i + 1}`), `ll${tag}t`]
    names.forEach((name, i) => joinBridge({ name, veth: `llv${tag}${i}`, bridge, address: `${subnet}.${i + 1}` }, made))
    return { hosts: names.slice(0, count), target: { name: names[count], address: `${subnet}.${count + 1}` }, bridge, remove }
  } catch (err) {
    remove()
    throw err
  }
}

// One namespace with lo up and a veth to the bridge carrying `address`.
function joinBridge ({ name, veth, bridge, address }, made) {
  ip('netns', 'add', name)
  made.namespaces.push(name)
  ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name)
  made.links.push(veth)
  ip('link', 'set', veth, 'master', bridge, 'up')
  ip('-n', name, 'addr', 'add', `${address}/24`, 'dev', 'eth0')
  ip('-n', name, 'link', 'set', 'eth0', 'up')
  ip('-n', name, 'link', 'set', 'lo', 'up')
}

// Delete what was made, each on its own (one that fails does not stop the rest); returns the failures.
function removeAll (made) {
  const failed = []
  for (const link of made.links.splice(0).reverse()) {
    const r = spawnSync('ip', ['link', 'del', link], { encoding: 'utf8' })
    if (r.status !== 0 && !/Cannot find device/.test(r.stderr)) failed.push(`${link}: ${r.stderr.trim()}`)
  }
  for (const ns of made.namespaces.splice(0).reverse()) {
    const r = spawnSync('ip', ['netns', 'del', ns], { encoding: 'utf8' })
    if (r.status !== 0) failed.push(`${ns}: ${r.stderr.trim()}`)
  }
  return failed
}
