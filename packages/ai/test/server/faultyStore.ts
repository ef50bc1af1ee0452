import { StoreError, type ThreadCommit, type ThreadStore } from '@toolgate/ai/server'

/**
 * A store whose next commits fail as an outage makes them fail (a timeout, a lock, a dropped
 * connection: a `StoreError`, as the shared stores throw), once armed: `failNext(n)` makes the next `n` commits throw without writing.
 */
export function faultyStore(inner: ThreadStore): ThreadStore & { failNext(count: number, when?: (commit: ThreadCommit) => boolean): void } {
  let failures = 0
  let matches: (commit: ThreadCommit) => boolean = () => true
  return {
    ...(inner.events ? { events: inner.events } : {}),
    head: (threadId) => inner.head(threadId),
    messages: (threadId, from, to) => inner.messages(threadId, from, to),
    decisions: (threadId) => inner.decisions(threadId),
    async commit(commit) {
      if (failures > 0 && matches(commit)) {
        failures -= 1
        throw new StoreError('faultyStore', 'commit', new Error('injected: the store did not answer in time'))
      }
      return inner.commit(commit)
    },
    failNext(count, when = () => true) {
      failures = count
      matches = when
    },
  }
}
