/**
 * A promise already fulfilled with `undefined`, shared: what an in-process store answers a write
 * with (`memoryStore`'s event log). A caller that gets this very promise back knows the write is
 * done and goes on at once, without a reaction and a microtask per write (`events/logWriter.ts`:
 * a run streaming a delta per event-loop turn writes its log once a turn); any other promise, a
 * wrapper's included, is awaited as usual.
 */
export const SETTLED: Promise<undefined> = Promise.resolve(undefined)
