// Example task: server-side render of a product listing page with React (react, react-dom are project
// dependencies). The props are the input: the default below (48 products), or `--input
// @examples/react-page.props.json` (12). setup() loads React once per process/thread, as an SSR server
// would at start.
//   npm run lab -- --task examples/react-page.js --server all
let h, renderToString

export async function setup () {
  const react = await import('react')
  const server = await import('react-dom/server')
  h = react.createElement
  renderToString = server.renderToString
}

// Deterministic props: `count` products with names, prices and ratings derived from their index.
export function makeProps (count = 48) {
  const products = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    name: `Product ${i + 1}`,
    price: Math.round((5 + ((i * 37) % 200) + ((i * 13) % 100) / 100) * 100) / 100,
    rating: 1 + ((i * 7) % 5),
    tags: ['new', 'sale', 'eco', 'gift'].filter((_, t) => (i + t) % 3 === 0)
  }))
  return { title: 'Spring catalogue', currency: 'EUR', products }
}

export const input = makeProps()

function Product ({ product, currency }) {
  return h(
    'li',
    { className: 'product', 'data-id': product.id },
    h('h2', null, product.name),
    h('p', { className: 'price' }, `${product.price.toFixed(2)} ${currency}`),
    h(
      'p',
      { className: 'rating', 'aria-label': `${product.rating} of 5` },
      '★'.repeat(product.rating) + '☆'.repeat(5 - product.rating)
    ),
    product.tags.length
      ? h(
        'ul',
        { className: 'tags' },
        product.tags.map((t) => h('li', { key: t }, t))
      )
      : null,
    h('button', { type: 'button' }, 'Add to basket')
  )
}

function Page ({ title, currency, products }) {
  const total = products.reduce((s, p) => s + p.price, 0)
  return h(
    'html',
    { lang: 'en' },
    h('head', null, h('meta', { charSet: 'utf-8' }), h('title', null, title)),
    h(
      'body',
      null,
      h(
        'header',
        null,
        h('h1', null, title),
        h('p', null, `${products.length} products, average ${(total / products.length).toFixed(2)} ${currency}`)
      ),
      h(
        'main',
        null,
        h(
          'ul',
          { className: 'grid' },
          products.map((p) => h(Product, { key: p.id, product: p, currency }))
        )
      ),
      h('footer', null, 'Rendered on the server')
    )
  )
}

// The request: render the page for these props; the body is { html } (the lab verifies it byte for byte).
export default function render (props) {
  return { html: '<!DOCTYPE html>' + renderToString(h(Page, props)) }
}
