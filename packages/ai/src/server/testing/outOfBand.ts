import * as v from 'valibot'
import { toolDefinition } from '../../tools/toolDefinition.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { createChatHandler } from '../createChatHandler.ts'
import { StoreError } from '../stores/storeError.ts'
import { withCommit, type ThreadCommit, type ThreadStore } from '../thread/threadStore.ts'
import { scriptedModel } from './scriptedModel.ts'

// Writes a run does not make, landing while it holds the thread (a grant revoked, a stop asked of
// another instance), and a store failing the write that marks an approved call running: the run
// finishes with what it did stored, the other writer's change stands, and an approved call runs
// exactly once or can still run; it never turns into "may or may not have taken effect".

/** A chat app on `store` whose `send_email` waits at a gate the test opens, recording each start. */
function gatedApp(store: ThreadStore) {
  const ran: string[] = []
  let gate: Promise<void> = Promise.resolve()
  let open = () => {}
  let started = () => {}
  let running: Promise<void> = Promise.resolve()
  const email = toolDefinition({
    name: 'send_email',
    description: 'Sends an email',
    inputSchema: v.object({ to: v.string() }),
    needsApproval: true,
  }).server(async ({ to }) => {
    ran.push(to)
    started()
    await gate
    return { sent: to }
  })
  const model = scriptedModel([
    // Two calls one after the other in one turn: the second is planned after the first ran.
    { when: /twice (\w+) (\w+)/, call: (m) => ({ tool: 'send_email', input: { to: m[1]! } }), then: (_, { match, round }) => (round === 1 ? { call: { tool: 'send_email', input: { to: match[2]! } } } : 'sent both') },
    { when: /email (\w+)/, call: (m) => ({ tool: 'send_email', input: { to: m[1]! } }), then: ([r]) => `email: ${r.status}` },
  ])
  const handler = () => createChatHandler({ model, tools: [email], store })
  const instances = [handler(), handler()]
  const post = (body: unknown, instance = 0) =>
    instances[instance]!(new Request('http://test/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  const eventsOf = (text: string) => text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as { type: string; [key: string]: unknown })
  const snapshot = async (threadId: string) =>
    (await (await instances[0]!(new Request(`http://test/chat?threadId=${threadId}`))).json()) as { status: string; messages: ThreadMessage[]; interrupts: { id: string; toolCallId: string; input: unknown }[]; answers?: unknown[] }
  /** Sends a message; the thread and the interrupt the run paused on, if any. */
  const ask = async (message: string, threadId?: string) => {
    const events = eventsOf(await (await post(threadId ? { threadId, message } : { message })).text())
    const outcome = events.at(-1)!.outcome as { interrupts?: { id: string; toolCallId: string }[] } | undefined
    return { threadId: events[0]!.threadId as string, interrupt: outcome?.interrupts?.[0], events }
  }
  /** The next start of the tool waits until `open` is called; `running` resolves once it started. */
  const holdNextCall = () => {
    gate = new Promise((resolve) => (open = resolve))
    running = new Promise((resolve) => (started = resolve))
    return { running, open: () => open() }
  }
  return { ran, post, eventsOf, snapshot, ask, holdNextCall, handler: instances[0]! }
}

/**
 * `inner`, whose first release (a commit that leaves the thread held by no run: a slow release)
 * waits until `open` is called, or until the head was read `reads` times once `arm`ed: long
 * enough for a request that came while the run held the thread to find it busy.
 */
/** A transfer only a finance reviewer may approve, and a model that asks for one on "pay"; `ran` gets each run's input. */
function financeTransfer(ran: unknown[]) {
  const transfer = toolDefinition({
    name: 'transfer_money',
    description: 'Sends money',
    inputSchema: v.object({ to: v.string() }),
    needsApproval: () => ({ reason: 'Sends money', reviewers: { roles: ['finance'] } }),
  }).server(async (input) => (ran.push(input), { ok: true }))
  const model = scriptedModel([{ when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob' } }), then: () => 'paid' }])
  return { transfer, model }
}

function holdingRelease(inner: ThreadStore, reads = 5) {
  let armed = false
  let held = false
  let count = 0
  let open = () => {}
  const gate = new Promise<void>((resolve) => (open = resolve))
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'commit') {
        return async (commit: ThreadCommit) => {
          if (!held && commit.head.activeRun === undefined) {
            held = true
            await gate
          }
          return target.commit(commit)
        }
      }
      if (key === 'head') {
        return (threadId: string) => {
          if (armed && (count += 1) >= reads) open()
          return target.head(threadId)
        }
      }
      const value = Reflect.get(target, key, receiver) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
  return { store, arm: () => void (armed = true), open: () => open(), heldOnce: () => held }
}

/** No stored message says a call may or may not have taken effect. */
function saysMaybe(messages: readonly ThreadMessage[]): boolean {
  return messages.some((message) => message.role === 'tool' && /may or may not have taken effect/.test(message.content))
}

/**
 * `store`, whose next commit that marks a call running (`arm`) fails: `before` writing anything,
 * or `after` writing it (the store's answer was lost).
 */
function failingMark(store: ThreadStore) {
  let armed: 'before' | 'after' | undefined
  const commit = async (commit: ThreadCommit) => {
    const marks = armed !== undefined && (commit.head.step?.running.length ?? 0) > 0
    if (!marks) return store.commit(commit)
    const when = armed
    armed = undefined
    if (when === 'after') await store.commit(commit)
    throw new StoreError('conformance', 'commit', new Error(`injected: the running mark failed ${when} it was written`))
  }
  return { store: withCommit(store, commit), arm: (when: 'before' | 'after') => void (armed = when) }
}

/** The part of the conformance suite's runner these checks use (conformance.ts `ConformanceRunner`). */
export interface Runner {
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void
  expect(value: unknown): { toBe(expected: unknown): void; toEqual(expected: unknown): void }
}

/** Writes racing a run, and a failed running mark, on the stores `factory` makes (run by `threadStoreConformance`). */
export function outOfBandChecks(factory: (options: { readonly threadTtlMs?: number }) => ThreadStore | Promise<ThreadStore>, { it, expect }: Runner): void {
  it('out-of-band writes: a grant revoked while a run writes: the run finishes, the call that started under it has its result stored, the revoke stands, and a call planned after it asks again', async () => {
    const app = gatedApp(await factory({}))
    const first = await app.ask('email ann')
    const { threadId } = first
    await (await app.post({ threadId, resume: [{ interruptId: first.interrupt!.id, approved: true, grant: {} }] })).text()
    const [grant] = await app.handler.grants(threadId)
    expect(typeof grant?.id).toBe('string')

    const call = app.holdNextCall()
    const turn = (await app.post({ threadId, message: 'twice bob cat' })).text()
    await call.running
    expect((await app.post({ threadId, revokeGrant: grant!.id })).status).toBe(200)
    call.open()
    const events = app.eventsOf(await turn)
    expect(events.filter((event) => event.type === 'RUN_ERROR').length).toBe(0)
    expect(events.at(-1)!.type).toBe('RUN_FINISHED')
    // bob's call started under the grant and finished; cat's, planned after the revoke, asks again.
    expect(app.ran).toEqual(['ann', 'bob'])
    expect(((events.at(-1)!.outcome as { interrupts?: unknown[] }).interrupts ?? []).length).toBe(1)
    expect(await app.handler.grants(threadId)).toEqual([])
    const stored = await app.snapshot(threadId)
    expect(stored.status).toBe('interrupted')
    expect(stored.interrupts.map((interrupt) => interrupt.input)).toEqual([{ to: 'cat' }])
    const results = stored.messages.filter((message) => message.role === 'tool').map((message) => [message.role === 'tool' && message.status, message.role === 'tool' && message.content])
    expect(results).toEqual([
      ['success', JSON.stringify({ sent: 'ann' })],
      ['success', JSON.stringify({ sent: 'bob' })],
    ])
  }, 60_000)

  it('out-of-band writes: a stop asked of another instance while its run writes: the run stops and finishes, with the result of the call that ran stored', async () => {
    const app = gatedApp(await factory({}))
    const first = await app.ask('email ann')
    const { threadId } = first
    const call = app.holdNextCall()
    const turn = (await app.post({ threadId, resume: [{ interruptId: first.interrupt!.id, approved: true }] })).text()
    await call.running
    // The other instance does not run it: it writes the request into the head.
    const stop = (await (await app.post({ threadId, stop: true }, 1)).json()) as { stopped: boolean }
    expect(stop.stopped).toBe(true)
    call.open()
    const events = app.eventsOf(await turn)
    expect(events.filter((event) => event.type === 'RUN_ERROR').length).toBe(0)
    expect(events.at(-1)!.type).toBe('RUN_FINISHED')
    const stored = await app.snapshot(threadId)
    expect(stored.status).toBe('idle')
    // Its result: success, or, when the run heard of the stop while the tool ran, that it may have taken effect (it started).
    expect(stored.messages.filter((message) => message.role === 'tool').length).toBe(1)
    expect(app.ran).toEqual(['ann'])
  }, 60_000)

  it('out-of-band writes: `decide()` called as soon as an approval is requested (the asking run still lets the thread go) waits its turn: the run resumes and the tool runs once', async () => {
    const store = await factory({})
    const ran: unknown[] = []
    const decisions: Promise<unknown>[] = []
    const { transfer, model } = financeTransfer(ran)
    const handler = createChatHandler({
      model,
      tools: [transfer],
      store,
      identify: () => ({ id: 'alice' }),
      // An app that decides at once (a rule, a bot): while the asking run has not yet let the thread go.
      onApprovalRequested: (request) =>
        void decisions.push(handler.decide({ threadId: request.threadId, interruptId: request.interruptId, decision: 'approved', by: { id: 'bob', roles: ['finance'] } }).then((result) => result.resumed, (error: { code?: string }) => error.code)),
    })
    const text = await (await handler(new Request('http://test/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'pay Bob' }) }))).text()
    const threadId = JSON.parse(text.split('\n').find((line) => line.startsWith('data: '))!.slice(6)).threadId as string
    for (let i = 0; i < 200 && decisions.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await Promise.all(decisions)).toEqual([true])
    for (let i = 0; i < 500 && ran.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    for (let i = 0; i < 500 && (await store.head(threadId))?.activeRun; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(ran).toEqual([{ to: 'Bob' }])
    const head = await store.head(threadId)
    expect(head?.step).toBe(undefined)
    expect(head?.activeRun).toBe(undefined)
  }, 60_000)

  it('out-of-band writes: a reviewer answering through a review link while the asking run still lets the thread go waits its turn: the approval lands, the run resumes and the tool runs once', async () => {
    // The asking run's release is slow: held until the link's answer came back, or the store was
    // read a few times since it was sent (an answer waiting its turn reads the head again).
    const held = holdingRelease(await factory({}))
    const { store } = held
    const ran: unknown[] = []
    const answers: Promise<unknown>[] = []
    const { transfer, model } = financeTransfer(ran)
    const post = (body: unknown, user: string) =>
      handler(new Request('http://test/chat', { method: 'POST', headers: { 'content-type': 'application/json', 'x-user': user }, body: JSON.stringify(body) }))
    const handler = createChatHandler({
      model,
      tools: [transfer],
      store,
      identify: (request) => (request.headers.get('x-user') === 'bob' ? { id: 'bob', roles: ['finance'] } : { id: 'alice' }),
      reviewLinks: { secret: 'out-of-band-review-link-secret-0123456789' },
      // A reviewer quick on the link (or a bot holding it): while the asking run has not yet let the thread go.
      onApprovalRequested: (request) => {
        held.arm()
        const answered = post({ review: request.links[0]!.token, answer: { interruptId: request.interruptId, approved: true } }, 'bob').then(async (response) =>
          response.status === 200 ? ((await response.json()) as { resumed: boolean }).resumed : ((await response.json()) as { error: { code: string } }).error.code,
        )
        void answered.then(held.open, held.open) // not finally: its copy of a failure would go unobserved
        answers.push(answered)
      },
    })
    const text = await (await post({ message: 'pay Bob' }, 'alice')).text()
    const threadId = JSON.parse(text.split('\n').find((line) => line.startsWith('data: '))!.slice(6)).threadId as string
    expect(held.heldOnce()).toBe(true)
    expect(await Promise.all(answers)).toEqual([true])
    for (let i = 0; i < 500 && ran.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    for (let i = 0; i < 500 && (await store.head(threadId))?.activeRun; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(ran).toEqual([{ to: 'Bob' }])
    const head = await store.head(threadId)
    expect(head?.step).toBe(undefined)
    expect(head?.activeRun).toBe(undefined)
    const decisions = await store.decisions(threadId)
    expect(decisions.map((record) => [record.decision, record.by.id, record.channel])).toEqual([['approved', 'bob', 'review-link']])
  }, 60_000)

  for (const when of ['before', 'after'] as const) {
    it(`an approved call whose running mark fails ${when === 'before' ? 'to be written' : 'after it was written (the answer lost)'} did not run and still can: a replay of the answer runs it exactly once, and nothing says it may have taken effect`, async () => {
      const faulty = failingMark(await factory({}))
      const app = gatedApp(faulty.store)
      const { threadId, interrupt } = await app.ask('email ann')
      const answer = { threadId, resume: [{ interruptId: interrupt!.id, approved: true }] }
      faulty.arm(when)
      const failed = app.eventsOf(await (await app.post(answer)).text())
      expect(failed.at(-1)!.type).toBe('RUN_ERROR')
      expect(app.ran).toEqual([])
      // Let go at once, not held until the lease lapses: the approved call waits to run, answered.
      const lost = await app.snapshot(threadId)
      expect(lost.status).toBe('idle')
      expect(lost.answers?.length).toBe(1)
      expect(saysMaybe(lost.messages)).toBe(false)

      const replayed = await app.post(answer)
      expect(replayed.status).toBe(200)
      const events = app.eventsOf(await replayed.text())
      expect(events.at(-1)!.type).toBe('RUN_FINISHED')
      expect(app.ran).toEqual(['ann'])
      // A second replay is refused: it ran once.
      expect((await app.post(answer)).status).toBe(409)
      await app.ask('thanks', threadId)
      const stored = await app.snapshot(threadId)
      expect(saysMaybe(stored.messages)).toBe(false)
      expect(stored.messages.filter((message) => message.role === 'tool').map((message) => message.role === 'tool' && message.status)).toEqual(['success'])
      expect(app.ran).toEqual(['ann'])
    }, 60_000)
  }
}
