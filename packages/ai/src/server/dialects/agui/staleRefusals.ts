// Which requests keep the 409 for a stale answer (agui/staleAnswer.ts): those of a dialect whose
// client takes no snapshot in a run. Apart, so the dialect that marks them imports nothing else.

const refusedAsIs = new WeakSet<Request>()

/**
 * Marks a request whose dialect's client takes no snapshot in a run (the AI SDK's UI message
 * stream has no chunk that replaces messages): its stale answer keeps the 409, and its page reads
 * the thread itself. Were it answered with a snapshot, `useChat` would keep its own stale messages
 * and send the same answer again.
 */
export function refuseStaleAnswers(request: Request): void {
  refusedAsIs.add(request)
}

export function refusesStaleAnswers(request: Request): boolean {
  return refusedAsIs.has(request)
}
