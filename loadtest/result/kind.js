// What kind of run a result is: an HTTP run (a server loaded over sockets), or a case of an in-process
// experiment (dispatch: a hook called through a channel; offload: study 000's batch through a pool),
// which has no HTTP figures (requests, latency percentiles, capacity) and a mean time instead.

// The kinds of in-process cases.
const IN_PROCESS_KINDS = Object.freeze(['dispatch', 'offload'])

// True for a case of an in-process experiment.
export function isInProcess (r) {
  return IN_PROCESS_KINDS.includes(r?.kind)
}
