// Memory layout and states of the shared-memory channel, shared by both sides.
//
// One SharedArrayBuffer per worker: a 64-byte header of Int32 words, then `capacity` bytes of data
// (the UTF-8 id going in, the UTF-8 answer or error coming back).

// Header word indexes.
export const STATE = 0 // one of the states below; the word both sides wait on
export const LEN = 1 // bytes of data valid in the data area
export const COST_US = 2 // the hook's cost for this call, in microseconds
export const STOP = 3 // 1 once the main thread asked the worker to end
export const MSG_LEN = 4 // for ERROR: bytes of the message; the rest of LEN is the stack

export const HEADER_BYTES = 64
export const HEADER_INTS = HEADER_BYTES / 4

// States of the STATE word.
export const STARTING = 0 // the worker is loading the hook
export const IDLE = 1 // the worker is waiting for a call
export const REQUEST = 2 // the main thread wrote a call
export const DONE = 3 // the worker wrote the answer
export const ERROR = 4 // the worker wrote an error (the hook threw, or the answer did not fit)
export const START_FAILED = 5 // the hook could not be loaded; the data holds the error
export const STOPPING = 6 // the main thread is closing the channel

// The smallest data area, so that an error message always has room.
export const MIN_CAPACITY = 4096
