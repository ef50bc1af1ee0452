import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startRedis, stopChild, waitForOutput, type RedisServer } from '../services/redis.ts'

// When a process dies: two instances share a Redis; instance A is killed (SIGKILL) mid-run, and
// the client, now talking to instance B, gets the turn back: continued from the last stored step,
// nothing duplicated, and no tool run twice unless it is idempotent.

const packageDir = fileURLToPath(new URL('../..', import.meta.url))
const serverScript = fileURLToPath(new URL('../services/chatServer.ts', import.meta.url))

let redis: RedisServer
let dir: string
const children: ChildProcess[] = []

beforeAll(async () => {
  redis = await startRedis()
  dir = mkdtempSync(join(tmpdir(), 'toolgate-crash-'))
}, 30_000)
afterEach(async () => {
  await Promise.all(children.splice(0).map(stopChild))
})
afterAll(async () => {
  await redis?.stop()
  rmSync(dir, { recursive: true, force: true })
})

let prefixes = 0
async function twoInstances(toolLog: string) {
  const env = { ...process.env, REDIS_URL: redis.url, TOOL_LOG: toolLog, PREFIX: `crash${prefixes++}:` }
  const start = async () => {
    const child = spawn(process.execPath, ['--conditions=@toolgate/source', '--import', 'tsx', serverScript], { cwd: packageDir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    children.push(child)
    let port = 0
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString())
      if (match) port = Number(match[1])
    })
    await waitForOutput(child, /listening \d+/, 'chat server', 30_000)
    return { child, url: `http://127.0.0.1:${port}/` }
  }
  return Promise.all([start(), start()])
}

interface Frame {
  id?: string
  event: { type: string; [key: string]: any }
}

async function* frames(response: Response): AsyncGenerator<Frame> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += value
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, end).split('\n')
        buffer = buffer.slice(end + 2)
        const data = lines.find((line) => line.startsWith('data: '))
        if (data) yield { id: lines.find((line) => line.startsWith('id: '))?.slice(4), event: JSON.parse(data.slice(6)) }
      }
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function readAll(response: Response): Promise<Frame[]> {
  const all: Frame[] = []
  for await (const frame of frames(response)) all.push(frame)
  return all
}

/** The rest of the turn, read from B with the last event id A sent. */
async function attachToB(url: string, threadId: string, lastEventId: string): Promise<Frame[]> {
  return readAll(await fetch(`${url}?threadId=${threadId}`, { headers: { accept: 'text/event-stream', 'last-event-id': lastEventId } }))
}

async function thread(url: string, threadId: string) {
  return (await (await fetch(`${url}?threadId=${threadId}`)).json()) as { status: string; messages: { role: string; content: string; status?: string; toolCallId?: string }[] }
}

/** Reads A's stream until `stop` says so (checked on each event and every 10 ms), then kills A with SIGKILL. */
async function killDuring(a: { child: ChildProcess }, response: Response, stop: (frame: Frame | undefined) => boolean) {
  const seen: Frame[] = []
  let stopped = false
  const reading = (async () => {
    for await (const frame of frames(response)) {
      seen.push(frame)
      if (stop(frame)) return
    }
  })().catch(() => {})
  while (!stopped) {
    await Promise.race([reading, new Promise((resolve) => setTimeout(resolve, 10))])
    stopped = stop(undefined) || seen.some((frame) => stop(frame))
  }
  a.child.kill('SIGKILL')
  await new Promise((resolve) => a.child.once('exit', resolve))
  return { seen, last: seen.at(-1)! }
}

/**
 * Pauses a turn on an approval on A, approves it on A, kills A once the tool started, and reads the
 * rest of the turn from B. `toolRuns()`: each start the tool recorded, as [pid, toolCallId].
 */
async function killWhileApprovedToolRuns(message: string, logName: string) {
  const toolLog = join(dir, logName)
  writeFileSync(toolLog, '')
  const [a, b] = await twoInstances(toolLog)
  const paused = await readAll(await post(a.url, { message }))
  const threadId = paused[0]!.event.threadId as string
  const interrupt = paused.at(-1)!.event.outcome.interrupts[0]
  const resumed = await post(a.url, { threadId, resume: [{ interruptId: interrupt.id, approved: true }] })
  const { last, seen } = await killDuring(a, resumed, () => readFileSync(toolLog, 'utf8').length > 0)
  const rest = await attachToB(b.url, threadId, last.id!)
  expect(rest.at(-1)!.event.type).toBe('RUN_FINISHED')
  const toolRuns = () => readFileSync(toolLog, 'utf8').trim().split('\n').map((line) => line.split(' '))
  return { b, threadId, interrupt, rest, toolRuns, seen }
}

describe('a process killed mid-run', () => {
  it('while the model streams: B continues the turn from the stored step, nothing duplicated', async () => {
    const [a, b] = await twoInstances(join(dir, 'story.log'))
    const { seen, last } = await killDuring(a, await post(a.url, { message: 'tell a story' }), (frame) => frame !== undefined && frame.event.type === 'TEXT_MESSAGE_CONTENT' && Number(frame.id!.split(':')[1]) > 5)
    const threadId = seen[0]!.event.threadId as string

    const rest = await attachToB(b.url, threadId, last.id!)
    expect(rest.at(-1)!.event.type).toBe('RUN_FINISHED')
    // The reader got what A logged after its last event (if anything), none twice, then followed a
    // new run that continued the turn from its first event.
    const [deadRun, lastSeq] = last.id!.split(':')
    const ids = rest.map((frame) => frame.id).filter((id): id is string => id !== undefined)
    const fromDead = ids.filter((id) => id.startsWith(`${deadRun}:`)).map((id) => Number(id.split(':')[1]))
    expect(fromDead).toEqual(fromDead.map((_, i) => Number(lastSeq) + 1 + i))
    const newRuns = new Set(ids.filter((id) => !id.startsWith(`${deadRun}:`)).map((id) => id.split(':')[0]))
    expect(newRuns.size).toBe(1)
    const fromNew = ids.filter((id) => !id.startsWith(`${deadRun}:`))
    expect(fromNew[0]).toMatch(/:1$/)

    const stored = await thread(b.url, threadId)
    expect(stored.status).toBe('idle')
    expect(stored.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(stored.messages[1]!.content).toMatch(/^part 0\. .*part 59\. $/)
    // B answers the next message: the thread is B's now.
    const next = await readAll(await post(b.url, { threadId, message: 'tell a story' }))
    expect(next.at(-1)!.event.type).toBe('RUN_FINISHED')
  }, 60_000)

  it('while an approved tool runs: the call is reported as interrupted, never run again', async () => {
    const { b, threadId, interrupt, rest, toolRuns } = await killWhileApprovedToolRuns('pay Bob', 'pay.log')
    const result = rest.find((frame) => frame.event.type === 'TOOL_CALL_RESULT')!.event
    expect(result).toMatchObject({ toolCallId: interrupt.toolCallId, metadata: { status: 'error' }, content: expect.stringMatching(/^The server stopped while this call ran; it may or may not have taken effect, and it was not run again$/) })
    expect(toolRuns()).toHaveLength(1)

    const stored = await thread(b.url, threadId)
    expect(stored.messages.map((m) => `${m.role}${m.status ? `:${m.status}` : ''}`)).toEqual(['user', 'assistant', 'tool:error', 'assistant'])
    expect(stored.messages[3]!.content).toMatch(/^error: The server stopped/)
  }, 60_000)

  it("while a subagent's approved tool runs: the call of its agent is reported as interrupted, and nothing runs again", async () => {
    const { b, threadId, interrupt, rest, toolRuns, seen } = await killWhileApprovedToolRuns('delegate', 'delegate.log')
    // The interrupt was the subagent's inner call; the run's own call (of the agent tool) is what a crash cut off.
    expect(interrupt).toMatchObject({ subagentRunId: expect.any(String), metadata: { toolName: 'transfer_money', path: [{ agent: 'research' }] } })
    const result = rest.find((frame) => frame.event.type === 'TOOL_CALL_RESULT' && frame.event.subagentRunId === undefined)!.event
    expect(result).toMatchObject({ toolCallId: interrupt.metadata.path[0].toolCallId, metadata: { status: 'error' }, content: expect.stringMatching(/^The server stopped while this call ran/) })
    expect(toolRuns()).toHaveLength(1)
    expect(toolRuns()[0]![1]).toBe(interrupt.toolCallId)
    // The dead run as this reader was told it (from A, then from B) closes every subagent it opened
    // before its RUN_FINISHED: AG-UI refuses a run that finishes with one active.
    const dead = [...seen, ...rest.slice(0, rest.findIndex((frame) => frame.event.type === 'RUN_FINISHED'))].map((frame) => frame.event)
    const opened = dead.filter((event) => event.type === 'SUBAGENT_STARTED').map((event) => event.subagentRunId)
    const closed = dead.filter((event) => event.type === 'SUBAGENT_FINISHED' || event.type === 'SUBAGENT_ERROR').map((event) => event.subagentRunId)
    expect(closed).toEqual(opened)
    const stored = await thread(b.url, threadId)
    expect(stored.status).toBe('idle')
    expect(stored.messages.map((m) => `${m.role}${m.status ? `:${m.status}` : ''}`)).toEqual(['user', 'assistant', 'tool:error', 'assistant'])
    expect(stored.messages[3]!.content).toMatch(/^error: The server stopped/)
    // The thread is B's: the next turn runs there.
    const next = await readAll(await post(b.url, { threadId, message: 'tell a story' }))
    expect(next.at(-1)!.event.type).toBe('RUN_FINISHED')
  }, 60_000)

  it('while an idempotent tool runs: it runs again under the same toolCallId', async () => {
    const { b, threadId, interrupt, toolRuns } = await killWhileApprovedToolRuns('idem Bob', 'idem.log')
    const runs = toolRuns()
    expect(runs).toHaveLength(2)
    expect(runs[0]![0]).not.toBe(runs[1]![0]) // two processes
    expect(runs.map((run) => run[1])).toEqual([interrupt.toolCallId, interrupt.toolCallId])
    const stored = await thread(b.url, threadId)
    expect(stored.messages.map((m) => `${m.role}${m.status ? `:${m.status}` : ''}`)).toEqual(['user', 'assistant', 'tool:success', 'assistant'])
  }, 60_000)
})

