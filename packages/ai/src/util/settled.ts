/**
 * A promise already fulfilled with `undefined`, shared: what an in-process store answers a write
 * with (`memoryStore`'s event log). A caller that gets this very promise back knows the write is
 * done and goes on at once, without a reaction and a microtask per write (`events/logWriter.ts`
 * then writes a run's events to it as they come, a delta's at once); any other promise, a
 * wrapper's included, is awaited as usual.
 */
export const SETTLED: Promise<undefined> = Promise.resolve(undefined)
