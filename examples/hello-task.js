// The smallest task module: `npm run lab -- --task examples/hello-task.js --server simple,queued-threads`.
// The default export is called once per request with `input`; its JSON result is the response body.
export const input = { name: 'world', times: 200000 }

export default function hello ({ name, times }) {
  let n = 0
  for (let i = 0; i < times; i++) n += i % 7
  return { hello: name, n }
}
