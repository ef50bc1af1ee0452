/**
 * A promise already fulfilled with `undefined`, shared: what an in-process store answers a write
 * with (`memoryStore`'s event log). A caller that gets this very promise back knows the write is
 * done and goes on at once, without a reaction and a microtask per write (`events/logWriter.ts`
 * then writes a run's events to it as they come, a delta's at once); any other promise, a
 * wrapper's included, is awaited as usual.
 */
export const SETTLED: Promise<undefined> = Promise.resolve(undefined)

/** What `inProcess` marked. */
const IN_PROCESS = new WeakSet<object>()

/**
 * Marks `target` (an event log) as one kept in this process, answering each write with `SETTLED`,
 * and returns it. Known before its first write: a run's live stream then tells each event at once
 * (events/liveStream.ts), as a log in this process holds it once written and dies with the process
 * that would tell it.
 */
export function inProcess<T extends object>(target: T): T {
  IN_PROCESS.add(target)
  return target
}

/** `target` was marked `inProcess` (a wrapper of it is not: its writes are awaited as any other's). */
export function isInProcess(target: object): boolean {
  return IN_PROCESS.has(target)
}
