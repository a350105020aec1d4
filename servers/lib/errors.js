// Every error the servers raise on purpose: one class, one table of codes, each with its HTTP status.

const codes = {
  ERR_BAD_OPTION: { statusCode: 400, exitCode: 2 }, // a bad flag or environment value at start-up
  ERR_BAD_WORK: { statusCode: 400, exitCode: 2 }, // a bad work spec (--work, WORK or ?work=)
  ERR_CROSS_ORIGIN: { statusCode: 403 }, // a lab route asked from another origin (a page in a browser)
  ERR_MEDIA_TYPE: { statusCode: 415 }, // a lab route given a body that is not JSON
  ERR_TASK_FAILED: { statusCode: 500 }, // the work threw, or its thread/child died while working
  ERR_BAD_TASK: { statusCode: 500, exitCode: 2 }, // --task/--input: missing file, not a function, bad JSON
  ERR_TASK_SETUP: { statusCode: 500 }, // the task's setup() threw (once per process/thread, kept)
  ERR_TASK_RESULT: { statusCode: 500 }, // the task's result is not JSON-serialisable
  ERR_TASK_TIMEOUT: { statusCode: 500 }, // the task did not settle within --task-timeout
  ERR_API_FAILED: { statusCode: 502 }, // long-vs-small-tasks: the API emulator did not answer
  ERR_API_TIMEOUT: { statusCode: 504 }, // long-vs-small-tasks: the API did not answer within --api-timeout
  ERR_START_FAILED: { statusCode: 503 }, // a thread or child process could not be started
  ERR_QUEUE_FULL: { statusCode: 503, retryAfter: 1 }, // --max-queue reached
  ERR_DEADLINE: { statusCode: 503, retryAfter: 1 }, // waited past --deadline for a thread: not run
  ERR_SHUTTING_DOWN: { statusCode: 503, retryAfter: 1 }, // the server is stopping
  ERR_ABORTED: { statusCode: 499 } // the client left before its work started (nobody reads the answer)
}

// An error with a stable `code`, the HTTP `statusCode` it answers with, and optional `retryAfter` seconds.
export class ServerError extends Error {
  constructor (code, message, options) {
    super(message, options)
    const info = codes[code]
    if (!info) throw new TypeError(`unknown ServerError code ${code}`)
    this.name = 'ServerError'
    this.code = code
    this.statusCode = info.statusCode
    this.exitCode = info.exitCode ?? 1
    if (info.retryAfter) this.retryAfter = info.retryAfter
  }
}
