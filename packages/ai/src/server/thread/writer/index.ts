// The thread writer: the only code that turns a change (made by a transition, ../transitions.ts)
// into a commit, in the manner of TanStack Query's `#dispatch`. Requests write once, by
// compare-and-set, making their change again on a conflict (`updateThread`), or on a head this
// instance wrote (`commitChange` with `follows`: a claim on the cached head, ../cachedClaim.ts); a
// run writes through its `RunWriter`, which orders its writes, groups those asked together into one
// commit, sends a write behind one not yet answered on a store that pipelines, lets them carry the
// run's log, and, when another writer changed the thread meanwhile (a revoked grant, a stop
// request) while the run still holds it, makes its writes again on the stored head: an out-of-band
// write never fails a run. Nothing outside this folder calls a store's `commit` (test/server/oneWriter.test.ts).

export { commitChange, type CarriedEvents } from './commit.ts'
export { updateThread, type Updated } from './updateThread.ts'
export { RunWriter, type AsyncRunTransition, type RunTransition } from './RunWriter.ts'
