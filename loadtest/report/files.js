// A report's files as the CLI and the library write them: the JSON first, then the Markdown and the page.
// The page's renderer (vega, large) is loaded only here; if it cannot load, the JSON is written all the same.
import { renderMarkdown } from './markdown.js'
import { writeReport } from './write.js'

// Writes `report` into `dir` in the words of its `experiment` module (gzip: its JSON as .json.gz);
// resolves { dir, id, paths, errors }.
export async function writeReportFiles (report, { dir, experiment, gzip = false }) {
  const page = await import('./page.js').catch((err) => ({
    renderReportHtml () {
      throw err
    }
  }))
  return writeReport(report, {
    dir,
    gzip,
    renderers: { md: (r) => renderMarkdown(r, experiment), html: (r) => page.renderReportHtml(r, { experiment }) }
  })
}
