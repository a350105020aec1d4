// Example task: parse a JSON document and transform it, as an API that receives a large request body
// does: orders → revenue per country and the top customers. The document (input.orders orders, about
// 180 bytes each) is generated once per process/thread by setup(); every call parses its text again.
//   npm run lab -- --task examples/json-transform.js --server all
//   npm run lab -- --task examples/json-transform.js --input '{"orders":20000,"top":5}' --server all
const COUNTRIES = ['FR', 'DE', 'ES', 'IT', 'NL', 'PL', 'SE', 'PT']
const documents = new Map() // orders → JSON text, built once per process/thread

export const input = { orders: 5000, top: 10 }

// Deterministic orders (a linear congruential generator, so every thread builds the same text).
export function makeDocument (orders) {
  let seed = 42
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
  const list = Array.from({ length: orders }, (_, i) => ({
    id: `o-${i}`,
    customer: `c-${Math.floor((next() * orders) / 10)}`,
    country: COUNTRIES[Math.floor(next() * COUNTRIES.length)],
    lines: Array.from({ length: 1 + Math.floor(next() * 4) }, () => ({
      sku: `s-${Math.floor(next() * 500)}`,
      qty: 1 + Math.floor(next() * 5),
      cents: 100 + Math.floor(next() * 9900)
    }))
  }))
  return JSON.stringify({ generated: 'loadlab example', orders: list })
}

export function setup () {
  documents.set(input.orders, makeDocument(input.orders))
}

export default function transform ({ orders, top }) {
  if (!documents.has(orders)) documents.set(orders, makeDocument(orders)) // another size given by --input
  const doc = JSON.parse(documents.get(orders))
  const byCountry = {}
  const byCustomer = new Map()
  for (const order of doc.orders) {
    const cents = order.lines.reduce((s, l) => s + l.qty * l.cents, 0)
    byCountry[order.country] = (byCountry[order.country] ?? 0) + cents
    byCustomer.set(order.customer, (byCustomer.get(order.customer) ?? 0) + cents)
  }
  const topCustomers = [...byCustomer]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, top)
    .map(([customer, cents]) => ({ customer, total: cents / 100 }))
  const revenueByCountry = Object.fromEntries(
    Object.entries(byCountry)
      .sort()
      .map(([k, v]) => [k, v / 100])
  )
  return { orders: doc.orders.length, revenueByCountry, topCustomers }
}
