/**
 * Instructions of a weather turn's events alone: RunEvents → the run's event stream → the memory
 * store's log and the live stream → the frames a `toNodeHandler` response writes (a sink that only
 * counts them). No HTTP, no model, no thread: the events path (server/events/) measured apart, as
 * instructions under valgrind's callgrind, counted only while `turns` turns run after a warm-up,
 * so a cut of a few hundred instructions per event shows.
 *
 * Run: npm run build, then tsx bench/eventInstructions.ts [dist dir] [turns]
 * (a dist dir other than this package's: a base build to compare with)
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const dist = process.argv[2] ?? fileURLToPath(new URL('../dist', import.meta.url))
const turns = Number(process.argv[3] ?? 3000)
const WARMUP = 3000

if (process.env.EVENT_TURNS === undefined) {
  // Counted only while the turns run (turned on and off from here, as bench/instructions.ts does).
  const out = mkdtempSync(join(tmpdir(), 'event-instructions-'))
  const child = spawn('valgrind', ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}/callgrind.%p`, process.execPath, '--single-threaded', '--import', 'tsx', fileURLToPath(import.meta.url), dist], {
    env: { ...process.env, EVENT_TURNS: String(turns) },
    stdio: ['pipe', 'pipe', 'ignore'],
  })
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' })
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      if (line === 'ready') {
        control('-i', 'on')
        child.stdin!.write('go\n')
      } else if (line === 'done') {
        control('-d')
        control('-i', 'off')
        break
      }
    }
    let instructions = 0
    for (const file of readdirSync(out)) instructions = Math.max(instructions, Number(/^(?:summary|totals):\s*(\d+)/m.exec(readFileSync(join(out, file), 'utf8'))?.[1] ?? 0))
    console.log(`event instructions: ${dist} ${(instructions / turns / 1000).toFixed(1)} k per weather turn's events, over ${turns} turns after ${WARMUP}`)
  } finally {
    child.kill('SIGKILL')
    rmSync(out, { recursive: true, force: true })
  }
} else {
  const { RunEvents } = await import(`${dist}/server/events/runEvents.js`)
  const { runEventStream, liveResponse } = await import(`${dist}/server/events/liveStream.js`)
  const { OFFER_FRAMES } = await import(`${dist}/server/events/directFrames.js`)
  const { memoryEventLog } = await import(`${dist}/server/stores/memory.js`)
  const { randomId } = await import(`${dist}/util/randomId.js`)
  const log = memoryEventLog()
  let written = 0
  const sink = { write: (text: string) => void (written += text.length), end: (text: string) => void (written += text.length) }
  const turn = async () => {
    const request = { [OFFER_FRAMES]: (frames: { attach(s: typeof sink): void }) => frames.attach(sink) }
    const { live, response } = liveResponse(request as never)
    const runId = randomId('run_')
    const stream = runEventStream(log, 'thread_abc', runId, live)
    const events = new RunEvents('thread_abc', runId, stream.sink, {})
    events.started()
    response()
    events.stepStarted(randomId('msg_'))
    const call = randomId('call_')
    events.toolCallStart(call, 'get_weather')
    for (const delta of ['{"city', '":"Par', 'is"}']) events.toolCallArgs(call, delta)
    events.stepEnded()
    events.result({ role: 'tool', id: randomId('msg_'), toolCallId: call, toolName: 'get_weather', content: '{"tempC":5}', status: 'success', output: { tempC: 5 } })
    events.stepStarted(randomId('msg_'))
    for (const delta of ['It ', 'is ', '5°C.']) events.text(delta)
    events.finished({ type: 'success' }, { model: 'scripted', inputTokens: 11, outputTokens: 7, totalTokens: 18 })
    stream.end()
    // The frames go out at the end of the event-loop turn (util/turnBatch.ts).
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setImmediate(resolve))
  }
  for (let i = 0; i < WARMUP; i++) await turn()
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
  console.log('ready')
  await lines.next()
  for (let i = 0; i < Number(process.env.EVENT_TURNS); i++) await turn()
  if (written === 0) throw new Error('no frames were written')
  console.log('done')
  await lines.next()
}
