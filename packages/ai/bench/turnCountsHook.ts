/**
 * Counting hooks for bench/turnCounts.ts, loaded into an app process (bench/instance.ts) when
 * TURN_COUNTS is set: between the messages 'counts-start' and 'counts-stop' it counts what the
 * process does (promises and other async resources by type, timers, immediates, event listeners,
 * AbortControllers, `res.write`/`res.end`, and the bytes allocated in the young generation), and replies
 * with the totals. TURN_COUNTS=light leaves async resources uncounted (the async hook's own
 * allocations would blur the young generation's); TURN_COUNTS=promises also names the Toolgate folder each
 * promise was made from (a stack per promise: slow).
 */
import { createHook } from 'node:async_hooks'
import { EventEmitter } from 'node:events'
import { ServerResponse } from 'node:http'
import v8 from 'node:v8'

let counting = false
const counts = new Map<string, number>()
const count = (what: string) => {
  if (counting) counts.set(what, (counts.get(what) ?? 0) + 1)
}

/** The Toolgate folder a promise was made from: the first frame in the package's built code. */
function madeIn(): string {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 16
  const stack = new Error().stack ?? ''
  Error.stackTraceLimit = limit
  for (const line of stack.split('\n').slice(2)) {
    if (byLine) {
      const at = /at (?:async )?(\S+) .*\/packages\/ai\/(?:dist|src)\/(.+\.[jt]s:\d+)/.exec(line) ?? /\/packages\/ai\/(?:dist|src)\/(.+\.[jt]s:\d+)/.exec(line)
      if (at) return at.length > 2 ? `${at[2]} (${at[1]})` : at[1]!
      continue
    }
    const found = /\/packages\/ai\/(?:dist|src)\/(.+)\/[^/]+\.[jt]s:\d+/.exec(line) ?? /\/packages\/ai\/(?:dist|src)\/([^/]+)\.[jt]s:\d+/.exec(line)
    if (found) return found[1]!
  }
  // An async function resumed from the microtask queue has no caller on its stack.
  return '(no Toolgate frame: a resumed await, the bench, or a dependency)'
}

const byFolder = process.env.TURN_COUNTS === 'promises'
/** TURN_COUNTS_BY=line names the file, line and function instead of the folder. */
const byLine = process.env.TURN_COUNTS_BY === 'line'
const hook = createHook({
  init(_id, type) {
    count(`async ${type}`)
    if (byFolder && type === 'PROMISE' && counting) count(`promise from ${madeIn()}`)
  },
})

// Counted where they are made: the global functions and prototypes every module calls at run time.
const wrap = <T extends object, K extends keyof T>(owner: T, key: K, name: (args: unknown[]) => string) => {
  const original = owner[key] as unknown as (...args: unknown[]) => unknown
  owner[key] = function (this: unknown, ...args: unknown[]) {
    count(name(args))
    return original.apply(this, args)
  } as T[K]
}
wrap(globalThis, 'setTimeout', () => 'setTimeout')
wrap(globalThis, 'setImmediate', () => 'setImmediate')
wrap(globalThis, 'queueMicrotask', () => 'queueMicrotask')
wrap(globalThis, 'structuredClone', () => 'structuredClone')
wrap(EventEmitter.prototype, 'on', (args) => `listener ${String(args[0])}`)
// `once` adds through `on`, so it is counted there; `addListener` is `on`'s other name.
EventEmitter.prototype.addListener = EventEmitter.prototype.on
wrap(EventTarget.prototype, 'addEventListener', (args) => `EventTarget listener ${String(args[0])}`)
wrap(ServerResponse.prototype, 'write', () => 'res.write')
wrap(ServerResponse.prototype, 'end', () => 'res.end')
// Counted on the prototype, so a subclass made before this hook loaded (the run's RunAbort) counts too:
// each controller once, when its signal is first asked for (Node makes the signal then).
const signalGetter = Object.getOwnPropertyDescriptor(AbortController.prototype, 'signal')!.get!
const counted = new WeakSet<AbortController>()
Object.defineProperty(AbortController.prototype, 'signal', {
  configurable: true,
  enumerable: true,
  get(this: AbortController) {
    if (!counted.has(this)) {
      counted.add(this)
      count('AbortController')
    }
    return signalGetter.call(this)
  },
})

let gc: InstanceType<typeof v8.GCProfiler> | undefined
/** Bytes in use in the young generation when counting started. */
let youngAtStart = 0
const youngNow = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_used_size ?? 0
process.on('message', (message) => {
  if (message === 'counts-start') {
    counts.clear()
    counting = true
    if (process.env.TURN_COUNTS !== 'light') hook.enable()
    gc = new v8.GCProfiler()
    gc.start()
    youngAtStart = youngNow()
    process.send!('counting')
  }
  if (message === 'counts-stop') {
    counting = false
    hook.disable()
    const end = youngNow()
    let scavenges = 0
    let markCompacts = 0
    // Allocated = what each collection found in use beyond what the last one left, and the same up to now.
    let youngAllocated = 0
    let left = youngAtStart
    for (const { gcType, beforeGC, afterGC } of gc!.stop().statistics) {
      if (gcType === 'Scavenge') scavenges++
      else markCompacts++
      const young = (heap: typeof beforeGC) => heap.heapSpaceStatistics.find((space) => space.spaceName === 'new_space')?.spaceUsedSize ?? 0
      youngAllocated += young(beforeGC) - left
      left = young(afterGC)
    }
    youngAllocated += end - left
    process.send!({ counts: Object.fromEntries(counts), scavenges, markCompacts, youngAllocated })
  }
})
