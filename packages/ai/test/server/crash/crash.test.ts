import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatClient } from '@toolgate/ai/client'
import type { ChatEvent, ThreadSnapshot } from '@toolgate/ai/server'
import { startRedis, stopChild, waitForOutput, type RedisServer } from '../../services/redis.ts'
import { checkEvent } from '../helpers/server.ts'

// When a process dies: two server processes share a real Redis; instance A is killed with SIGKILL
// mid-run, and the client goes on with instance B. Everything A stored is there, the run's readers
// get every logged event once and then RUN_ERROR RUN_LOST once A's lease lapses, the next message
// settles what A left (a started call is interrupted, or run again when its tool is idempotent),
// and nothing is duplicated.

const LEASE_MS = 1500
const INSTANCE = fileURLToPath(new URL('./instance.ts', import.meta.url))

let redis: RedisServer
let dir: string
let calls: string
let prefix = 0
const children = new Set<ChildProcess>()

beforeAll(async () => {
  redis = await startRedis()
  dir = mkdtempSync(join(tmpdir(), 'toolgate-crash-'))
}, 30_000)

afterAll(async () => {
  await Promise.all([...children].map(stopChild))
  await redis?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

interface Instance {
  readonly url: string
  readonly child: ChildProcess
}

/** A chat server in its own Node process on the shared Redis; `hold`: its tools never finish. */
async function startInstance(name: string, keyPrefix: string, hold = false): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@toolgate/source', INSTANCE], {
    env: { ...process.env, REDIS_URL: redis.url, PREFIX: keyPrefix, CALLS_FILE: calls, LEASE_MS: String(LEASE_MS), HOLD: hold ? '1' : '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  child.once('exit', () => children.delete(child))
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk))
  await waitForOutput(child, /listening \d+/, `instance ${name}`)
  const port = /listening (\d+)/.exec(output)![1]
  return { url: `http://127.0.0.1:${port}/chat`, child }
}

function kill(instance: Instance): Promise<void> {
  return new Promise((resolve) => {
    instance.child.once('exit', () => resolve())
    instance.child.kill('SIGKILL')
  })
}

/** A fresh pair of instances on their own keys: A, killed in the test, and B, which goes on. */
async function pair(holdOnA: boolean) {
  calls = join(dir, `calls-${prefix}.log`)
  writeFileSync(calls, '')
  const keyPrefix = `crash${prefix++}:`
  const [a, b] = await Promise.all([startInstance('A', keyPrefix, holdOnA), startInstance('B', keyPrefix)])
  return { a, b }
}

interface Frame {
  readonly id: string | undefined
  readonly event: ChatEvent
}

/** SSE frames as they arrive, with their ids. */
async function* frames(response: Response): AsyncGenerator<Frame> {
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += value
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (data !== undefined) yield { id: /^id: (.*)$/m.exec(block)?.[1], event: checkEvent(JSON.parse(data)) }
      }
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

async function collect(response: Response): Promise<Frame[]> {
  const all: Frame[] = []
  for await (const frame of frames(response)) all.push(frame)
  return all
}

const post = (instance: Instance, body: unknown) =>
  fetch(instance.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

async function snapshotOf(instance: Instance, threadId: string): Promise<ThreadSnapshot> {
  const response = await fetch(`${instance.url}?threadId=${threadId}`, { headers: { accept: 'application/json' } })
  expect(response.status).toBe(200)
  return (await response.json()) as ThreadSnapshot
}

const attach = (instance: Instance, threadId: string, lastEventId?: string) =>
  fetch(`${instance.url}?threadId=${threadId}`, { headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } })

/** The lines `<pid> start|end <tool> <toolCallId>` the instances wrote. */
function toolLog(): { pid: number; what: string; tool: string; toolCallId: string }[] {
  return readFileSync(calls, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [pid, what, tool, toolCallId] = line.split(' ')
      return { pid: Number(pid), what: what!, tool: tool!, toolCallId: toolCallId! }
    })
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const seqOf = (frame: Frame) => Number(frame.id!.split(':')[1])

describe('instance A is killed (SIGKILL) while the model streams', () => {
  it('B serves the rest of the run from the log, then RUN_LOST; the stored thread is whole and goes on', async () => {
    const { a, b } = await pair(false)
    const stream = frames(await post(a, { message: 'tell me a story' }))
    const seen: Frame[] = []
    for await (const frame of stream) {
      seen.push(frame)
      if (seen.filter((f) => f.event.type === 'TEXT_MESSAGE_CONTENT').length === 5) break
    }
    await kill(a)
    const started = seen[0]!.event
    if (started.type !== 'RUN_STARTED') throw new Error('no RUN_STARTED')
    const { threadId, runId } = started

    // While A's lease holds, the thread is still A's run's.
    const during = await snapshotOf(b, threadId)
    expect(during).toMatchObject({ status: 'running', runId })

    // The client reconnects to B after the last event it saw.
    const rest = await collect(await attach(b, threadId, seen.at(-1)!.id))
    const logged = rest.filter((frame) => frame.id !== undefined)
    expect(logged.map(seqOf)).toEqual(logged.map((_, i) => seqOf(seen.at(-1)!) + 1 + i))
    expect(new Set([...seen, ...logged].map((frame) => frame.id)).size).toBe(seen.length + logged.length)
    expect(rest.at(-1)!.event).toMatchObject({ type: 'RUN_ERROR', code: 'RUN_LOST' })
    expect(rest.filter((frame) => frame.event.type === 'RUN_ERROR')).toHaveLength(1)

    // What A stored (the user's message) is there; the unfinished answer was never stored.
    const after = await snapshotOf(b, threadId)
    expect(after.status).toBe('idle')
    expect(after.messages.map((m) => m.role)).toEqual(['user'])

    // The thread takes the next message on B.
    const next = await collect(await post(b, { threadId, message: 'hello' }))
    expect(next.at(-1)!.event.type).toBe('RUN_FINISHED')
    const final = await snapshotOf(b, threadId)
    expect(final.messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant'])
    expect(final.messages.map((m) => m.id).length).toBe(new Set(final.messages.map((m) => m.id)).size)
  }, 30_000)

  it('a ChatClient that loads the thread on B mid-run follows it, reports RUN_LOST, and goes on on B', async () => {
    const { a, b } = await pair(false)
    const stream = frames(await post(a, { message: 'tell me a story' }))
    const first = await stream.next()
    const started = first.value!.event
    if (started.type !== 'RUN_STARTED') throw new Error('no RUN_STARTED')
    for (let i = 0; i < 6; i++) await stream.next()
    await kill(a)

    const client = createChatClient({ endpoint: b.url, threadId: started.threadId, scheduleNotify: (flush) => flush() })
    await client.load()
    const lost = client.getSnapshot()
    expect(lost.error).toMatchObject({ code: 'RUN_LOST' })
    expect(lost.status).not.toBe('streaming')
    expect(lost.messages.map((m) => m.role)).toEqual(['user', 'assistant']) // the streamed start of the answer, as logged

    await client.send('hello')
    const after = client.getSnapshot()
    expect(after.error).toBeUndefined()
    expect(after.status).toBe('idle')
    // What B stored is what the client shows once it reloads: the question, the next message, its answer.
    await client.load()
    expect(client.getSnapshot().messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant'])
  }, 30_000)
})

describe('instance A is killed (SIGKILL) while an approved server tool runs', () => {
  async function approveAndKill(message: string, tool: string) {
    const { a, b } = await pair(true)
    const asked = await collect(await post(a, { message }))
    const started = asked[0]!.event
    if (started.type !== 'RUN_STARTED') throw new Error('no RUN_STARTED')
    const finished = asked.at(-1)!.event
    if (finished.type !== 'RUN_FINISHED' || finished.outcome.type !== 'interrupt') throw new Error('no interrupt')
    const [interrupt] = finished.outcome.interrupts
    const resumed = frames(await post(a, { threadId: started.threadId, resume: [{ interruptId: interrupt!.id, approved: true }] }))
    const first = await resumed.next()
    expect(first.value?.event.type).toBe('RUN_STARTED')
    await until(() => toolLog().some((line) => line.what === 'start' && line.tool === tool), `${tool} to start on A`)
    await kill(a)
    return { a, b, threadId: started.threadId, toolCallId: interrupt!.toolCallId }
  }

  it('a tool that is not idempotent is never run again: the run ends with RUN_LOST, the next message reports the call interrupted', async () => {
    const { a, b, threadId, toolCallId } = await approveAndKill('pay Bob', 'transfer_money')
    const rest = await collect(await attach(b, threadId))
    expect(rest[0]!.event.type).toBe('RUN_STARTED')
    expect(rest.at(-1)!.event).toMatchObject({ type: 'RUN_ERROR', code: 'RUN_LOST' })

    const next = await collect(await post(b, { threadId, message: 'hello' }))
    const results = next.flatMap((frame) => (frame.event.type === 'TOOL_CALL_RESULT' ? [frame.event] : []))
    expect(results).toEqual([expect.objectContaining({ toolCallId, status: 'error', content: expect.stringMatching(/may or may not have taken effect, and it was not run again/) })])
    expect(next.at(-1)!.event.type).toBe('RUN_FINISHED')

    // Started once, on A, and never again.
    expect(toolLog()).toEqual([{ pid: a.child.pid, what: 'start', tool: 'transfer_money', toolCallId }])
    const { messages, status } = await snapshotOf(b, threadId)
    expect(status).toBe('idle')
    expect(messages.map((m) => (m.role === 'tool' ? `tool:${m.status}` : m.role))).toEqual(['user', 'assistant', 'tool:error', 'user', 'assistant'])
  }, 30_000)

  it('an idempotent tool runs again on B under the same toolCallId, once, and the turn goes on', async () => {
    const { a, b, threadId, toolCallId } = await approveAndKill('book Blue', 'book_room')
    const rest = await collect(await attach(b, threadId))
    expect(rest.at(-1)!.event).toMatchObject({ type: 'RUN_ERROR', code: 'RUN_LOST' })

    const next = await collect(await post(b, { threadId, message: 'hello' }))
    const results = next.flatMap((frame) => (frame.event.type === 'TOOL_CALL_RESULT' ? [frame.event] : []))
    expect(results).toEqual([expect.objectContaining({ toolCallId, status: 'success', output: { booking: `Blue@${toolCallId}` } })])

    expect(toolLog()).toEqual([
      { pid: a.child.pid, what: 'start', tool: 'book_room', toolCallId },
      { pid: b.child.pid, what: 'start', tool: 'book_room', toolCallId },
      { pid: b.child.pid, what: 'end', tool: 'book_room', toolCallId },
    ])
    const { messages } = await snapshotOf(b, threadId)
    expect(messages.map((m) => (m.role === 'tool' ? `tool:${m.status}` : m.role))).toEqual(['user', 'assistant', 'tool:success', 'user', 'assistant'])
  }, 30_000)
})
