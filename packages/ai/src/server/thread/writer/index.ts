// The thread writer: the only code that turns a change (made by a transition, ../transitions.ts)
// into a commit, in the manner of TanStack Query's `#dispatch`. A claim writes once by
// compare-and-set (`commitChange`; on the cached head with `follows`, ../cachedClaim.ts) and is
// answered with data, never called back; other requests make their change again on a conflict
// (`updateThread`). A run writes through its `RunWriter`: one write core that orders its writes,
// groups those asked together into one commit (batch.ts), sends a write behind one not yet
// answered on a store that pipelines, lets them carry the run's log, and, when another writer
// changed the thread meanwhile (a revoked grant, a stop request) while the run still holds it,
// makes its writes again on the stored head: an out-of-band write never fails a run. Nothing
// outside this folder calls a store's `commit` (test/server/oneWriter.test.ts).

export { commitChange, type CarriedEvents } from './commit.ts'
export { updateThread, type Updated } from './updateThread.ts'
export { RunWriter, type AsyncRunTransition, type RunTransition } from './RunWriter.ts'
