/**
 * One tool call whose arguments stream as 10, 20, 40 and 80 KB of JSON in 16-byte deltas,
 * processed by our client core and by @tanstack/ai's StreamProcessor. Both get the same AG-UI
 * events as objects, and both publish a fresh immutable message list after every event (ours
 * would batch them per animation frame in a browser; here it does not, to compare like for like).
 * Prints milliseconds per size and the growth factor per doubling: about 2 means linear, 4 quadratic.
 *
 * Run: tsx --conditions=@toolgate/source bench/client-stream.bench.ts
 */
import { StreamProcessor } from '@tanstack/ai'
import type { RunEvent } from '../src/protocol/events.ts'
import { callReading } from '../src/client/chunks/index.ts'
import { applyEvent, ThreadDraft } from '../src/client/draft/index.ts'

// The run stream loads the partial JSON parser before it hands on a TOOL_CALL_START; here the
// events go to the draft directly, so load it first (as the browser has by then).
await callReading.load()

const SIZES_KB = [10, 20, 40, 80]
const DELTA = 16
const REPEATS = 15
/** TanStack's quadratic runs take seconds at the larger sizes; fewer samples keep the bench bounded. */
const TANSTACK_REPEATS = 3

/** A `write_file` call: a path, a long body with quotes, newlines and non-ASCII text, and a few tags. */
function argumentsOfSize(bytes: number): string {
  const line = 'Line with "quotes", a \\ backslash, tabs\tand unicode: café ✓ — '
  let content = ''
  while (JSON.stringify({ path: 'notes/today.md', content, tags: ['a', 'b'] }).length < bytes) content += `${line}\n`
  return JSON.stringify({ path: 'notes/today.md', content, tags: ['draft', 'notes'] })
}

function eventsFor(args: string): RunEvent[] {
  const toolCallId = 'call_1'
  const events: RunEvent[] = [
    { type: 'RUN_STARTED', threadId: 'thread_1', runId: 'run_1' },
    { type: 'TOOL_CALL_START', toolCallId, toolCallName: 'write_file', parentMessageId: 'msg_1' },
  ]
  for (let i = 0; i < args.length; i += DELTA) events.push({ type: 'TOOL_CALL_ARGS', toolCallId, delta: args.slice(i, i + DELTA) })
  events.push({ type: 'TOOL_CALL_END', toolCallId }, { type: 'RUN_FINISHED', threadId: 'thread_1', runId: 'run_1', outcome: { type: 'success' } })
  return events
}

function runOurs(events: readonly RunEvent[]): unknown {
  const draft = new ThreadDraft([])
  let messages: unknown
  for (const event of events) {
    applyEvent(draft, event)
    messages = draft.snapshot().messages
  }
  return (messages as { parts: { input: unknown }[] }[])[0]!.parts[0]!.input
}

function runTanStack(events: readonly RunEvent[]): unknown {
  let messages: unknown
  const processor = new StreamProcessor({ events: { onMessagesChange: (next) => (messages = next) } })
  for (const event of events) processor.processChunk({ ...event, timestamp: 0 } as never)
  const part = (messages as { parts: { type: string; arguments: string }[] }[])[0]!.parts.find((p) => p.type === 'tool-call')!
  return JSON.parse(part.arguments)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

function time(run: (events: readonly RunEvent[]) => unknown, events: readonly RunEvent[], expected: unknown, repeats: number): number {
  const samples: number[] = []
  for (let i = 0; i < repeats; i++) {
    const start = performance.now()
    const input = run(events)
    samples.push(performance.now() - start)
    if (JSON.stringify(input) !== JSON.stringify(expected)) throw new Error(`${run.name} produced the wrong input`)
  }
  return median(samples)
}

// Warm up so the JIT does not bill the first size: ours on every size (it is cheap), TanStack on a small call.
for (const kb of SIZES_KB) for (let i = 0; i < 3; i++) runOurs(eventsFor(argumentsOfSize(kb * 1024)))
const warm = eventsFor(argumentsOfSize(4096))
for (let i = 0; i < 5; i++) runTanStack(warm)

const rows: { kb: number; deltas: number; ours: number; tanstack: number }[] = []
for (const kb of SIZES_KB) {
  const args = argumentsOfSize(kb * 1024)
  const events = eventsFor(args)
  const expected = JSON.parse(args)
  const ours = time(runOurs, events, expected, REPEATS)
  const tanstack = time(runTanStack, events, expected, kb >= 40 ? 1 : TANSTACK_REPEATS)
  rows.push({ kb, deltas: events.length - 4, ours, tanstack })
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`.padStart(10)
const growth = (values: number[], i: number) => (i === 0 ? '' : `×${(values[i]! / values[i - 1]!).toFixed(2)}`).padStart(7)
const ours = rows.map((row) => row.ours)
const tanstack = rows.map((row) => row.tanstack)

console.log(`\nStreaming one tool call's arguments in ${DELTA}-byte deltas (median of ${REPEATS} runs; TanStack ${TANSTACK_REPEATS}, 1 from 40 KB)`)
console.log('   size   deltas       ours  growth   @tanstack/ai  growth   speed-up')
rows.forEach((row, i) => {
  console.log(
    `${`${row.kb} KB`.padStart(7)} ${String(row.deltas).padStart(8)} ${fmt(row.ours)} ${growth(ours, i)}     ${fmt(row.tanstack)} ${growth(tanstack, i)} ${`×${(row.tanstack / row.ours).toFixed(0)}`.padStart(10)}`,
  )
})
const perDoubling = (values: number[]) => Math.pow(values[values.length - 1]! / values[0]!, 1 / (values.length - 1))
console.log(`growth per doubling: ours ×${perDoubling(ours).toFixed(2)}, @tanstack/ai ×${perDoubling(tanstack).toFixed(2)} (2 = linear, 4 = quadratic)`)
