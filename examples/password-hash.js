// Example task: a password hash, as a login endpoint computes it (PBKDF2-SHA256, Node's crypto, synchronous:
// the CPU is the request's). `iterations` sets its cost: 20,000 is a few milliseconds a call.
//   npm run lab -- --task examples/password-hash.js --experiment capacity --quick
import { pbkdf2Sync } from 'node:crypto'

export const input = { password: 'correct horse battery staple', salt: 'loadlab', iterations: 20000 }

export default function hash ({ password, salt, iterations }) {
  return { hash: pbkdf2Sync(password, salt, iterations, 32, 'sha256').toString('hex') }
}
