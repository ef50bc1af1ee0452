import * as v from 'valibot'
import { toolDefinition } from '../../tools/toolDefinition.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import { createChatHandler } from '../createChatHandler.ts'
import { scriptedModel } from './scriptedModel.ts'
import { reviewedApp } from './approvalAttacks.ts'
import { recordForgeryChecks } from './recordForgery.ts'
import { outOfBandChecks } from './outOfBand.ts'
import { readOnlyCallChecks } from './readOnlyCalls.ts'
import type { Principal } from '../../protocol/decisions.ts'
import type { ThreadHead, ThreadStore } from '../thread/threadStore.ts'
import type { AttachmentStore } from '../thread/attachmentStore.ts'

/**
 * `@toolgate/ai/server/testing`: the conformance suite every `ThreadStore` passes (memory, Redis,
 * Postgres, and yours). It takes your test runner's `describe`, `it` and `expect` (Vitest's or
 * Jest's), and a factory that returns a fresh, empty store.
 *
 * ```ts
 * import { describe, it, expect } from 'vitest'
 * import { threadStoreConformance } from '@toolgate/ai/server/testing'
 * threadStoreConformance('my store', (options) => myStore(options), { describe, it, expect })
 * ```
 *
 * A store that keeps tools' files (`store.attachments`) passes the attachment checks too; an
 * `AttachmentStore` on its own passes `attachmentStoreConformance`.
 */

export interface ConformanceRunner {
  describe(name: string, body: () => void): void
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void
  expect(value: unknown, message?: string): {
    toBe(expected: unknown): void
    toEqual(expected: unknown): void
    toBeUndefined(): void
  }
}

/** What the factory is asked for: a thread TTL when the suite tests expiry. */
export interface StoreFactoryOptions {
  readonly threadTtlMs?: number
}

export type StoreFactory = (options: StoreFactoryOptions) => ThreadStore | Promise<ThreadStore>

let counter = 0
/** Thread ids unique per run, so stores that outlive a test (a shared Redis) never collide. */
const freshId = () => `thread_conformance_${Date.now().toString(36)}_${(counter++).toString(36)}`

function headOf(id: string, version: number, messageCount: number, extra: Partial<ThreadHead> = {}): ThreadHead {
  return { id, version, createdAt: 1, updatedAt: version, messageCount, bytes: 0, resolvedInterruptIds: [], ...extra }
}

function userMessage(index: number, content = `message ${index}`): ThreadMessage {
  return { role: 'user', id: `msg_${index}`, content }
}

/** Every byte value, so an encoding that loses one (UTF-8 text, a NUL) fails. */
const ALL_BYTES = Uint8Array.from({ length: 512 }, (_, i) => i % 256)

/**
 * The `AttachmentStore` contract: files come back byte for byte with their type and name, per
 * thread, unchanged by what the caller does with its buffer afterwards. `thread` makes the thread
 * a file belongs to, for stores that keep files beside their threads.
 */
function attachmentChecks(
  it: ConformanceRunner['it'],
  expect: ConformanceRunner['expect'],
  open: () => Promise<{ files: AttachmentStore | undefined; thread: (id: string) => Promise<void> }>,
): void {
  it('keeps a file byte for byte, with its media type and name', async () => {
    const { files, thread } = await open()
    if (!files) return
    const id = freshId()
    await thread(id)
    const data = ALL_BYTES.slice()
    await files.put(id, 'att_1', { data, mediaType: 'application/octet-stream', filename: 'bytes.bin' })
    data.fill(0) // the caller's buffer is its own again
    const stored = await files.get(id, 'att_1')
    expect(Array.from(stored?.data ?? [])).toEqual(Array.from(ALL_BYTES))
    expect(stored?.data instanceof Uint8Array).toBe(true)
    expect(stored?.mediaType).toBe('application/octet-stream')
    expect(stored?.filename).toBe('bytes.bin')
    await files.put(id, 'att_2', { data: new Uint8Array(0), mediaType: 'text/plain' })
    expect((await files.get(id, 'att_2'))?.filename).toBeUndefined()
    expect((await files.get(id, 'att_2'))?.data.byteLength).toBe(0)
  })

  it('keeps files per thread: an id from another thread, or an unknown one, finds nothing', async () => {
    const { files, thread } = await open()
    if (!files) return
    const [one, other] = [freshId(), freshId()]
    await thread(one)
    await thread(other)
    await files.put(one, 'att_x', { data: ALL_BYTES, mediaType: 'image/png' })
    expect(await files.get(other, 'att_x')).toBeUndefined()
    expect(await files.get(one, 'att_unknown')).toBeUndefined()
  })
}

/** The `AttachmentStore` contract on its own, for a store of files that is not part of a `ThreadStore`. */
export function attachmentStoreConformance(name: string, factory: () => AttachmentStore | Promise<AttachmentStore>, { describe, it, expect }: ConformanceRunner): void {
  describe(`AttachmentStore conformance: ${name}`, () => {
    attachmentChecks(it, expect, async () => ({ files: await factory(), thread: async () => {} }))
  })
}

export function threadStoreConformance(name: string, factory: StoreFactory, { describe, it, expect }: ConformanceRunner): void {
  describe(`ThreadStore conformance: ${name}`, () => {
    recordForgeryChecks(factory, { describe, it, expect })
    // A store without files of its own (`attachments`) skips these: the handler keeps them in memory.
    attachmentChecks(it, expect, async () => {
      const store = await factory({})
      return { files: store.attachments, thread: (id: string) => store.commit({ head: headOf(id, 1, 0), append: [] }).then(() => {}) }
    })

    it('keeps a thread’s files as long as the thread, and forgets them with it', async () => {
      const store = await factory({ threadTtlMs: 300 })
      const files = store.attachments
      if (!files) return
      const id = freshId()
      await store.commit({ head: headOf(id, 1, 0), append: [] })
      await files.put(id, 'att_t', { data: ALL_BYTES, mediaType: 'image/png' })
      // Each write renews the thread, and its files with it.
      for (let version = 2; version <= 4; version++) {
        await new Promise((resolve) => setTimeout(resolve, 150))
        await store.commit({ head: headOf(id, version, 0), append: [] })
      }
      expect((await files.get(id, 'att_t'))?.data.byteLength).toBe(ALL_BYTES.byteLength)
      await new Promise((resolve) => setTimeout(resolve, 700))
      expect(await store.head(id)).toBeUndefined()
      expect(await files.get(id, 'att_t')).toBeUndefined()
    })

    it('knows no thread it was not given', async () => {
      const store = await factory({})
      expect(await store.head(freshId())).toBeUndefined()
      expect(await store.messages(freshId(), 0, 10)).toEqual([])
    })

    it('creates a thread at version 1 and reads back its head and messages', async () => {
      const store = await factory({})
      const id = freshId()
      const head = headOf(id, 1, 2, { activeRun: { runId: 'run_a', startedAt: 5, renewedAt: 6, fromMessage: 2 } })
      expect(await store.commit({ head, append: [userMessage(0), userMessage(1)] })).toBe(true)
      expect(await store.head(id)).toEqual(head)
      expect(await store.messages(id, 0, 2)).toEqual([userMessage(0), userMessage(1)])
      expect(await store.messages(id, 1, 2)).toEqual([userMessage(1)])
    })

    it('is a compare-and-set on the version: a stale write changes nothing', async () => {
      const store = await factory({})
      const id = freshId()
      expect(await store.commit({ head: headOf(id, 1, 1), append: [userMessage(0)] })).toBe(true)
      expect(await store.commit({ head: headOf(id, 1, 1), append: [userMessage(9)] })).toBe(false)
      expect(await store.commit({ head: headOf(id, 3, 2), append: [userMessage(9)] })).toBe(false)
      expect(await store.commit({ head: headOf(id, 2, 2), append: [userMessage(1)] })).toBe(true)
      expect((await store.head(id))?.version).toBe(2)
      expect(await store.messages(id, 0, 5)).toEqual([userMessage(0), userMessage(1)])
    })

    it('writes a later version only on a stored thread: none, or one whose time is up, fails it and leaves nothing', async () => {
      const store = await factory({ threadTtlMs: 300 })
      const id = freshId()
      expect(await store.commit({ head: headOf(id, 3, 1), append: [userMessage(0)] })).toBe(false)
      expect(await store.head(id)).toBeUndefined()
      expect(await store.commit({ head: headOf(id, 1, 1), append: [userMessage(0)] })).toBe(true)
      await new Promise((resolve) => setTimeout(resolve, 600))
      // A run's write landing after its thread expired does not bring the thread back.
      expect(await store.commit({ head: headOf(id, 2, 2), append: [userMessage(1)] })).toBe(false)
      expect(await store.head(id)).toBeUndefined()
      expect(await store.commit({ head: headOf(id, 1, 1), append: [userMessage(2)] })).toBe(true)
      expect(await store.messages(id, 0, 5)).toEqual([userMessage(2)])
    })

    it('writes a commit that follows a head (a store that pipelines) only on that very head: another writer’s of its version, or none, fails it', async () => {
      const store = await factory({})
      if (!store.pipelines) return
      const id = freshId()
      const first = headOf(id, 1, 1)
      const sent = headOf(id, 2, 2, { resolvedInterruptIds: ['sent'] })
      const other = headOf(id, 2, 1, { stopRequested: 'run_1' })
      expect(await store.commit({ head: first, append: [userMessage(0)] })).toBe(true)
      // Sent and not yet answered: `sent`; the one behind it follows it. Another writer got there first.
      const behind = { head: headOf(id, 3, 3), append: [userMessage(2)], follows: sent }
      expect(await store.commit({ head: other, append: [] })).toBe(true)
      expect(await store.commit({ head: sent, append: [userMessage(1)] })).toBe(false)
      expect(await store.commit(behind)).toBe(false)
      expect(await store.head(id)).toEqual(other)
      expect(await store.messages(id, 0, 5)).toEqual([userMessage(0)])
      // Once `sent` is the stored head (made again on the other's), what follows it lands.
      const again = headOf(id, 3, 2, { resolvedInterruptIds: ['sent'] })
      expect(await store.commit({ head: again, append: [userMessage(1)] })).toBe(true)
      expect(await store.commit({ head: headOf(id, 4, 3), append: [userMessage(2)], follows: again })).toBe(true)
      expect(await store.messages(id, 0, 5)).toEqual([userMessage(0), userMessage(1), userMessage(2)])
    })

    it('writes a commit’s run events (a log `inCommits`) with its head only: a stale commit ends no log, and events already logged stay as they were', async () => {
      const store = await factory({})
      if (!store.events?.inCommits) return
      const id = freshId()
      const runId = `run_${id}`
      const event = (seq: number, data = `{"n":${seq}}`) => ({ seq, data })
      expect(await store.commit({ head: headOf(id, 1, 0), append: [] })).toBe(true)
      // As the runtime writes a run's log: with its thread.
      await store.events.append(runId, [event(1), event(2)], false, id)
      expect(await store.commit({ head: headOf(id, 1, 0), append: [], events: { runId, events: [event(3)] } })).toBe(false)
      expect(await store.events.read(runId, 0, undefined, id)).toEqual({ events: [event(1), event(2)], ended: false })
      const ended = store.events.wait(runId, 2, 5000, new AbortController().signal, id)
      expect(await store.commit({ head: headOf(id, 2, 0), append: [], events: { runId, events: [event(2, '{"again":true}'), event(3)] } })).toBe(true)
      await ended
      expect(await store.events.read(runId, 0, undefined, id)).toEqual({ events: [event(1), event(2), event(3)], ended: true })
      // A batch that was on its way lands after: nothing changes.
      await store.events.append(runId, [event(2, '{"late":true}')], false, id)
      expect(await store.events.read(runId, 0, undefined, id)).toEqual({ events: [event(1), event(2), event(3)], ended: true })
      // A reader given the run's id alone (a TanStack rejoin) finds it too.
      expect(await store.events.read(runId, 1)).toEqual({ events: [event(2), event(3)], ended: true })
    })

    it('writes a live run’s events a commit carries (`final: false`, a log `inCommits`) with its head only, leaving the log open for the batches that follow', async () => {
      const store = await factory({})
      if (!store.events?.inCommits) return
      const id = freshId()
      const runId = `run_${id}`
      const event = (seq: number) => ({ seq, data: `{"n":${seq}}` })
      expect(await store.commit({ head: headOf(id, 1, 0), append: [], events: { runId, events: [event(1)], final: false } })).toBe(true)
      expect(await store.commit({ head: headOf(id, 1, 0), append: [], events: { runId, events: [event(2)], final: false } })).toBe(false)
      expect(await store.events.read(runId, 0, undefined, id)).toEqual({ events: [event(1)], ended: false })
      // The events of the refused commit, written by the log itself, then the next commit's.
      await store.events.append(runId, [event(2)], false, id)
      expect(await store.commit({ head: headOf(id, 2, 0), append: [], events: { runId, events: [event(3)], final: false } })).toBe(true)
      expect(await store.events.read(runId, 0, undefined, id)).toEqual({ events: [event(1), event(2), event(3)], ended: false })
      // A reader given the run's id alone (a TanStack rejoin) finds it too.
      expect(await store.events.read(runId, 1)).toEqual({ events: [event(2), event(3)], ended: false })
      expect(await store.commit({ head: headOf(id, 3, 0), append: [], events: { runId, events: [event(4)] } })).toBe(true)
      expect(await store.events.read(runId, 2, undefined, id)).toEqual({ events: [event(3), event(4)], ended: true })
    })

    it('lets exactly one of many concurrent writes of the same version win', async () => {
      const store = await factory({})
      const id = freshId()
      await store.commit({ head: headOf(id, 1, 0), append: [] })
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.commit({ head: headOf(id, 2, 1), append: [userMessage(i)] })))
      expect(results.filter(Boolean).length).toBe(1)
      expect((await store.messages(id, 0, 100)).length).toBe(1)
    })

    it('serializes concurrent appends that retry on conflict: every message once, in commit order', async () => {
      const store = await factory({})
      const id = freshId()
      await store.commit({ head: headOf(id, 1, 0), append: [] })
      const writer = async (index: number) => {
        for (;;) {
          const head = (await store.head(id))!
          if (await store.commit({ head: headOf(id, head.version + 1, head.messageCount + 1), append: [userMessage(index)] })) return
        }
      }
      await Promise.all(Array.from({ length: 20 }, (_, i) => writer(i)))
      const messages = await store.messages(id, 0, 100)
      expect(messages.length).toBe(20)
      expect(new Set(messages.map((m) => m.id)).size).toBe(20)
      expect((await store.head(id))?.messageCount).toBe(20)
    })

    it('keeps a large thread, and reads any window of it', async () => {
      const store = await factory({})
      const id = freshId()
      let version = 0
      for (let batch = 0; batch < 40; batch++) {
        const append = Array.from({ length: 50 }, (_, i) => userMessage(batch * 50 + i, `${'x'.repeat(200)} ${batch * 50 + i}`))
        expect(await store.commit({ head: headOf(id, ++version, (batch + 1) * 50), append })).toBe(true)
      }
      const window = await store.messages(id, 1234, 1240)
      expect(window.map((m) => m.id)).toEqual(['msg_1234', 'msg_1235', 'msg_1236', 'msg_1237', 'msg_1238', 'msg_1239'])
      expect((await store.messages(id, 0, 2000)).length).toBe(2000)
    }, 60_000)

    it('round-trips any unicode text exactly', async () => {
      const store = await factory({})
      const id = freshId()
      const content = 'Grüße 👋🏽 مرحبا 你好 \u0000 \u2028 "quotes" \\ back \ud83d\ude00 \t\n'
      const message: ThreadMessage = { role: 'assistant', id: 'msg_u', content, toolCalls: [{ id: 'call_ü', name: 'ünïcode', arguments: JSON.stringify({ text: content }) }] }
      await store.commit({ head: headOf(id, 1, 1, { resolvedInterruptIds: ['int_é'] }), append: [message] })
      expect(await store.messages(id, 0, 1)).toEqual([message])
      expect((await store.head(id))?.resolvedInterruptIds).toEqual(['int_é'])
    })

    it('appends decision records with the head, in order, and a stale write appends none', async () => {
      const store = await factory({})
      const id = freshId()
      const record = (seq: number): DecisionRecord => ({
        seq,
        threadId: id,
        interruptId: `int_${seq}`,
        toolCallId: `call_${seq}`,
        toolName: 'tränsfer',
        decision: 'approved',
        by: { id: 'bob', name: 'Bøb', roles: ['finance'] },
        at: '2026-01-01T00:00:00.000Z',
        channel: 'review-link',
        shownArgs: { amount: 5 },
        shownDigest: 'sha256:0',
        previous: seq === 0 ? null : `d${seq - 1}`,
        digest: `d${seq}`,
      })
      expect(await store.decisions(id)).toEqual([])
      expect(await store.commit({ head: headOf(id, 1, 0, { decisions: { count: 1, last: 'd0' } }), append: [], decisions: [record(0)] })).toBe(true)
      expect(await store.commit({ head: headOf(id, 1, 0, { decisions: { count: 2, last: 'd1' } }), append: [], decisions: [record(1)] })).toBe(false)
      expect(await store.commit({ head: headOf(id, 2, 1, { decisions: { count: 3, last: 'd2' } }), append: [userMessage(0)], decisions: [record(1), record(2)] })).toBe(true)
      expect(await store.commit({ head: headOf(id, 3, 1, { decisions: { count: 3, last: 'd2' } }), append: [] })).toBe(true)
      expect(await store.decisions(id)).toEqual([record(0), record(1), record(2)])
      expect((await store.head(id))?.decisions).toEqual({ count: 3, last: 'd2' })
    })

    it('forgets a thread after its TTL', async () => {
      const store = await factory({ threadTtlMs: 300 })
      const id = freshId()
      await store.commit({ head: headOf(id, 1, 1), append: [userMessage(0)] })
      expect((await store.head(id))?.version).toBe(1)
      await new Promise((resolve) => setTimeout(resolve, 700))
      expect(await store.head(id)).toBeUndefined()
      // The id can be used again, from scratch.
      expect(await store.commit({ head: headOf(id, 1, 1), append: [userMessage(5)] })).toBe(true)
      expect(await store.messages(id, 0, 5)).toEqual([userMessage(5)])
    })

    it('wakes a thread’s watcher on its next commit; a watch of a past version ends at once, one with nothing changing after its time', async () => {
      const store = await factory({})
      if (!store.watch) return // the handler looks at the head instead
      const id = freshId()
      await store.commit({ head: headOf(id, 1, 0), append: [] })
      const never = new AbortController().signal
      await store.watch(id, 0, 60_000, never)
      await store.watch(id, 1, 1, never)
      const watching = store.watch(id, 1, 60_000, never)
      await store.commit({ head: headOf(id, 2, 1), append: [userMessage(0)] })
      await watching
      expect((await store.head(id))?.version).toBe(2)
      const aborted = new AbortController()
      const stopped = store.watch(id, 2, 60_000, aborted.signal)
      aborted.abort()
      await stopped
    })

    it('keeps a run’s events logged with its thread for readers given the thread, or the run’s id alone, and wakes the thread’s waiters', async () => {
      const store = await factory({})
      const log = store.events
      if (!log) return
      const threadId = freshId()
      const runId = `run_${threadId}`
      const started = { seq: 1, data: `{"type":"RUN_STARTED","threadId":"${threadId}"}` }
      expect(await log.read(runId, 0, undefined, threadId)).toBeUndefined()
      await log.append(runId, [started], false, threadId)
      expect(await log.read(runId, 0, 1, threadId)).toEqual({ events: [started], ended: false })
      const waiting = log.wait(runId, 1, 5000, new AbortController().signal, threadId)
      await log.append(runId, [{ seq: 2, data: '{"type":"RUN_FINISHED"}' }], true, threadId)
      await waiting
      expect(await log.read(runId, 1, undefined, threadId)).toEqual({ events: [{ seq: 2, data: '{"type":"RUN_FINISHED"}' }], ended: true })
      expect(await log.read(runId, 0)).toEqual({ events: [started, { seq: 2, data: '{"type":"RUN_FINISHED"}' }], ended: true })
    })

    it('keeps runs’ events in order for readers that reattach, and marks the end', async () => {
      const store = await factory({})
      const log = store.events
      if (!log) return
      const runId = `run_${freshId()}`
      expect(await log.read(runId, 0)).toBeUndefined()
      await log.append(runId, [{ seq: 1, data: '{"type":"RUN_STARTED"}' }, { seq: 2, data: '{"n":"ü"}' }], false)
      expect(await log.read(runId, 0)).toEqual({ events: [{ seq: 1, data: '{"type":"RUN_STARTED"}' }, { seq: 2, data: '{"n":"ü"}' }], ended: false })
      const waiting = log.wait(runId, 2, 5000, new AbortController().signal)
      await log.append(runId, [{ seq: 3, data: '{"type":"RUN_FINISHED"}' }], true)
      await waiting
      expect(await log.read(runId, 2)).toEqual({ events: [{ seq: 3, data: '{"type":"RUN_FINISHED"}' }], ended: true })
      // A page: at most `limit` events, and `ended` only with the last one among them.
      expect(await log.read(runId, 0, 2)).toEqual({ events: [{ seq: 1, data: '{"type":"RUN_STARTED"}' }, { seq: 2, data: '{"n":"ü"}' }], ended: false })
      expect(await log.read(runId, 1, 2)).toEqual({ events: [{ seq: 2, data: '{"n":"ü"}' }, { seq: 3, data: '{"type":"RUN_FINISHED"}' }], ended: true })
    })

    it('reviewers: the requester, someone outside the role and a second answer by the same reviewer are refused and change nothing', async () => {
      const app = reviewedApp(await factory({}))
      const { threadId, interrupt } = await app.ask('pay 500')
      const before = await app.state(threadId)
      const answer = (as: string) => app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, as)
      expect(await app.errorOf(await answer('alice'))).toEqual({ status: 403, code: 'REVIEWER_REQUIRED' })
      expect(await app.errorOf(await answer('dave'))).toEqual({ status: 403, code: 'NOT_A_REVIEWER' })
      expect(await app.errorOf(await answer(''))).toEqual({ status: 403, code: 'NOT_A_REVIEWER' })
      expect(await app.state(threadId)).toEqual(before)
      expect(app.ran).toEqual([])

      // A reviewer who asks is the requester of that call: someone else in the role must decide it, by any channel.
      const own = await app.ask('pay 50', 'carol')
      const [ownLink] = await app.linksFor(own.interrupt.id)
      const ownBefore = await app.state(own.threadId)
      expect(await app.errorOf(await app.post({ threadId: own.threadId, resume: [{ interruptId: own.interrupt.id, approved: true }] }, 'carol'))).toEqual({ status: 403, code: 'REVIEWER_REQUIRED' })
      expect(await app.errorOf(await app.post({ review: ownLink!.token, answer: { interruptId: own.interrupt.id, approved: true } }, 'carol'))).toEqual({ status: 403, code: 'REVIEWER_REQUIRED' })
      expect(await app.state(own.threadId)).toEqual(ownBefore)

      // Two-person rule: bob's approval is kept, bob again is refused, carol's completes it.
      const wire = await app.ask('wire 9000')
      const approve = (as: string) => app.post({ threadId: wire.threadId, resume: [{ interruptId: wire.interrupt.id, approved: true }] }, as)
      const first = await approve('bob')
      expect(first.status).toBe(202)
      const waiting = ((await first.json()) as { interrupts: { approvals: { by: Principal }[] }[] }).interrupts[0]!
      expect(waiting.approvals.map((approval) => approval.by.id)).toEqual(['bob'])
      const afterBob = await app.state(wire.threadId)
      expect(await app.errorOf(await approve('bob'))).toEqual({ status: 409, code: 'ALREADY_DECIDED' })
      expect(await app.state(wire.threadId)).toEqual(afterBob)
      await (await approve('carol')).text()
      expect(app.ran).toEqual([{ tool: 'wire_funds', input: { to: 'Zed', amount: 9000 } }])
      const records = await app.handler.decisions(wire.threadId)
      expect(records.map((record) => [record.decision, record.by.id, record.channel])).toEqual([
        ['approved', 'bob', 'chat'],
        ['approved', 'carol', 'chat'],
      ])
    })

    it('reviewers: of two racing approvals one runs the tool and the other is refused', async () => {
      const app = reviewedApp(await factory({}))
      const { threadId, interrupt } = await app.ask('pay 700')
      const statuses = await Promise.all(
        ['bob', 'carol'].map(async (as) => {
          const response = await app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, as)
          await response.text()
          return response.status
        }),
      )
      expect([...statuses].sort()).toEqual([200, 409])
      expect(app.ran.length).toBe(1)
      expect((await app.handler.decisions(threadId)).length).toBe(1)
    })

    it('review links: one use each; truncated, altered, for another thread or interrupt, expired, outside the role or after an edit are refused and change nothing', async () => {
      const app = reviewedApp(await factory({}))
      const { threadId, interrupt } = await app.ask('pay 300')
      const [link] = await app.linksFor(interrupt.id)
      expect(link!.url).toBe(`https://app.test/review?token=${link!.token}`)
      expect(link!.reviewer).toEqual({ role: 'finance' })
      const other = await app.ask('pay 400')
      const before = await app.state(threadId)
      const review = (token: string, as = 'bob', extra: Record<string, unknown> = {}, interruptId = interrupt.id) =>
        app.post({ review: token, answer: { interruptId, approved: true }, ...extra }, as)
      const token = link!.token
      const [body, signature] = token.split('.') as [string, string]
      const flipped = body.slice(0, 10) + (body[10] === 'A' ? 'B' : 'A') + body.slice(11)
      expect(await app.errorOf(await review(token.slice(0, -5)))).toEqual({ status: 401, code: 'REVIEW_LINK_INVALID' })
      expect(await app.errorOf(await review(`${flipped}.${signature}`))).toEqual({ status: 401, code: 'REVIEW_LINK_INVALID' })
      expect(await app.errorOf(await review(body))).toEqual({ status: 401, code: 'REVIEW_LINK_INVALID' })
      expect(await app.errorOf(await review(token, 'bob', {}, other.interrupt.id))).toEqual({ status: 401, code: 'REVIEW_LINK_INVALID' })
      expect(await app.errorOf(await review(token, 'bob', { threadId: other.threadId }))).toEqual({ status: 401, code: 'REVIEW_LINK_INVALID' })
      expect(await app.errorOf(await review(token, 'dave'))).toEqual({ status: 403, code: 'NOT_A_REVIEWER' })
      expect(await app.errorOf(await review(token, 'alice'))).toEqual({ status: 403, code: 'NOT_A_REVIEWER' })
      expect(await app.state(threadId)).toEqual(before)

      // The page shows what the link decides; the link works once.
      const view = (await (await app.get(`review=${encodeURIComponent(token)}`)).json()) as { threadId: string; interrupt: { input: unknown } }
      expect(view.threadId).toBe(threadId)
      expect(view.interrupt.input).toEqual({ to: 'Bob', amount: 300 })
      const used = await review(token)
      expect(used.status).toBe(200)
      expect(((await used.json()) as { decision: { by: Principal; channel: string } }).decision).toEqual({
        decision: 'approved',
        by: { id: 'bob', name: 'Bob', roles: ['finance'] },
        at: (await app.handler.decisions(threadId))[0]!.at,
        channel: 'review-link',
      })
      await app.idle(threadId)
      const afterUse = await app.state(threadId)
      expect(await app.errorOf(await review(token))).toEqual({ status: 409, code: 'REVIEW_LINK_USED' })
      expect(await app.errorOf(await app.get(`review=${encodeURIComponent(token)}`))).toEqual({ status: 409, code: 'REVIEW_LINK_USED' })
      expect(await app.state(threadId)).toEqual(afterUse)
      expect(app.ran).toEqual([{ tool: 'transfer_money', input: { to: 'Bob', amount: 300 } }])

      // An edit by the first of two reviewers changes what the others approve: links made for the old arguments stop working.
      const wire = await app.ask('wire 5000')
      const wireLinks = await app.linksFor(wire.interrupt.id)
      expect(wireLinks.length).toBe(2)
      const edited = await app.post({ threadId: wire.threadId, resume: [{ interruptId: wire.interrupt.id, approved: true, editedArgs: { to: 'Zed', amount: 4000 } }] }, 'bob')
      expect(edited.status).toBe(202)
      const afterEdit = await app.state(wire.threadId)
      expect(await app.errorOf(await review(wireLinks[1]!.token, 'carol', {}, wire.interrupt.id))).toEqual({ status: 409, code: 'ARGUMENTS_CHANGED' })
      expect(await app.state(wire.threadId)).toEqual(afterEdit)
      await (await app.post({ threadId: wire.threadId, resume: [{ interruptId: wire.interrupt.id, approved: true }] }, 'carol')).text()
      expect(app.ran.at(-1)).toEqual({ tool: 'wire_funds', input: { to: 'Zed', amount: 4000 } })
      // Each decision names the arguments it was about; only the one that let the call run says what ran.
      const trail = (await app.handler.decisions(wire.threadId)).map((record) => [record.decision, record.by.id, record.shownArgs, record.args, record.ranArgs])
      expect(trail).toEqual([
        ['edited', 'bob', { to: 'Zed', amount: 5000 }, { to: 'Zed', amount: 4000 }, undefined],
        ['approved', 'carol', { to: 'Zed', amount: 4000 }, { to: 'Zed', amount: 4000 }, { to: 'Zed', amount: 4000 }],
      ])

      // An expired link.
      const shortLived = reviewedApp(await factory({}), { linkTtlMs: 1 })
      const late = await shortLived.ask('pay 100')
      const [lateLink] = await shortLived.linksFor(late.interrupt.id)
      await new Promise((resolve) => setTimeout(resolve, 5))
      const beforeLate = await shortLived.state(late.threadId)
      expect(await shortLived.errorOf(await shortLived.post({ review: lateLink!.token, answer: { interruptId: late.interrupt.id, approved: true } }, 'bob'))).toEqual({
        status: 410,
        code: 'REVIEW_LINK_EXPIRED',
      })
      expect(await shortLived.state(late.threadId)).toEqual(beforeLate)
    }, 60_000)

    it('api channel: `handler.decide` is held to the reviewer rules, refusals change nothing, and the decision is recorded with channel api', async () => {
      const app = reviewedApp(await factory({}))
      const { threadId, interrupt } = await app.ask('pay 600')
      const before = await app.state(threadId)
      const decide = (by: unknown, extra: Record<string, unknown> = {}) =>
        app.handler.decide({ threadId, interruptId: interrupt.id, decision: 'approved', by: by as Principal, ...extra })
      const alice = { id: 'alice', name: 'Alice' }
      const bob = { id: 'bob', name: 'Bob', roles: ['finance'] }
      expect(await app.refusalOf(decide(alice))).toEqual({ status: 403, code: 'REVIEWER_REQUIRED', path: 'interruptId' })
      expect(await app.refusalOf(decide({ id: 'dave', roles: ['sales'] }))).toEqual({ status: 403, code: 'NOT_A_REVIEWER', path: 'interruptId' })
      expect(await app.refusalOf(decide(bob, { decision: 'maybe' }))).toEqual({ status: 400, code: 'INVALID_REQUEST', path: 'decision' })
      expect(await app.refusalOf(decide({ name: 'Bob' }))).toEqual({ status: 400, code: 'INVALID_REQUEST', path: 'by' })
      expect(await app.refusalOf(decide(bob, { decision: 'denied', editedArgs: { to: 'Eve', amount: 1 } }))).toEqual({ status: 400, code: 'INVALID_REQUEST', path: 'editedArgs' })
      expect(await app.refusalOf(decide(bob, { editedArgs: { to: 'Bob' } }))).toEqual({ status: 422, code: 'INVALID_EDITED_ARGS', path: 'editedArgs.amount' })
      expect(await app.refusalOf(decide(bob, { interruptId: 'int_nope' }))).toEqual({ status: 404, code: 'INTERRUPT_NOT_FOUND', path: 'interruptId' })
      expect(await app.state(threadId)).toEqual(before)
      expect(app.ran).toEqual([])

      // Bob decides from the app's backend (a Slack button): recorded as his, through `api`; the run resumes.
      const decided = await decide(bob, { editedArgs: { to: 'Bob', amount: 550 } })
      expect(decided).toEqual({
        threadId,
        interruptId: interrupt.id,
        decision: { decision: 'edited', by: bob, at: (await app.handler.decisions(threadId))[0]!.at, channel: 'api', editedFields: ['amount'] },
        resumed: true,
      })
      await app.idle(threadId)
      expect(app.ran).toEqual([{ tool: 'transfer_money', input: { to: 'Bob', amount: 550 } }])
      const records = await app.handler.decisions(threadId)
      expect(records.map((record) => [record.decision, record.by.id, record.channel, record.ranArgs])).toEqual([['edited', 'bob', 'api', { to: 'Bob', amount: 550 }]])
      expect(app.recorded.at(-1)).toEqual(records[0])
      // The chat reads it like any decision: the result carries it, and a second answer is refused.
      const snapshot = (await (await app.get(`threadId=${threadId}`, 'alice')).json()) as { messages: { role: string; decision?: { channel: string } }[] }
      expect(snapshot.messages.find((message) => message.role === 'tool')?.decision?.channel).toBe('api')
      const afterUse = await app.state(threadId)
      expect(await app.refusalOf(decide({ id: 'carol', roles: ['finance'] }))).toEqual({ status: 409, code: 'INTERRUPT_ALREADY_ANSWERED', path: 'interruptId' })
      expect(await app.state(threadId)).toEqual(afterUse)

      // A denial through the API: the model reads the reviewer's reason.
      const next = await app.ask('pay 20', 'alice', threadId)
      expect(await app.handler.decide({ threadId, interruptId: next.interrupt.id, decision: 'denied', by: bob, reason: 'over budget' })).toEqual({
        threadId,
        interruptId: next.interrupt.id,
        decision: { decision: 'denied', by: bob, at: (await app.handler.decisions(threadId))[1]!.at, channel: 'api', reason: 'over budget' },
        resumed: true,
      })
      await app.idle(threadId)
      const after = (await (await app.get(`threadId=${threadId}`, 'alice')).json()) as { messages: { role: string; content: string }[] }
      expect(after.messages.filter((message) => message.role === 'tool').map((message) => message.content).at(-1)).toBe('denied by the user: over budget')
    }, 60_000)

    it('expiry: an approval past expiresAt ends `expired` once, whichever instance looks first, and a late answer is told it expired', async () => {
      const store = await factory({})
      const limits = { interruptTtlMs: 150 }
      const a = reviewedApp(store, { limits })
      const b = reviewedApp(store, { limits })
      const { threadId, interrupt } = await a.ask('pay 900')
      await new Promise((resolve) => setTimeout(resolve, 200))
      // Both instances read at once (and A's timer may too): the expiry is written once.
      const [fromA, fromB] = await Promise.all([a.get(`threadId=${threadId}`, 'alice'), b.get(`threadId=${threadId}`, 'alice')])
      for (const response of [fromA, fromB]) {
        const snapshot = (await response.json()) as { status: string; interrupts: unknown[]; messages: { role: string; status?: string; content?: string }[] }
        expect(snapshot.status).toBe('idle')
        expect(snapshot.interrupts).toEqual([])
        expect(snapshot.messages.filter((message) => message.role === 'tool').map((message) => [message.status, message.content])).toEqual([
          ['expired', 'The approval request expired before anyone answered; the tool did not run.'],
        ])
      }
      const records = await a.handler.decisions(threadId)
      expect(records.map((record) => [record.decision, record.by.id, record.interruptId])).toEqual([['expired', 'system', interrupt.id]])
      const before = await a.state(threadId)
      expect(await b.errorOf(await b.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, 'bob'))).toEqual({ status: 410, code: 'INTERRUPT_EXPIRED' })
      expect(await b.refusalOf(b.handler.decide({ threadId, interruptId: interrupt.id, decision: 'approved', by: { id: 'bob', roles: ['finance'] } }))).toEqual({
        status: 410,
        code: 'INTERRUPT_EXPIRED',
        path: 'interruptId',
      })
      expect(await a.state(threadId)).toEqual(before)
      expect([...a.ran, ...b.ran]).toEqual([])
    }, 60_000)

    it('expiry: `onExpired` sends an expired approval to other reviewers with a fresh expiry, recorded as escalated; the old reviewers can no longer decide', async () => {
      const store = await factory({})
      const escalated: { escalations: number; reviewers: unknown }[] = []
      const app = reviewedApp(store, {
        limits: { interruptTtlMs: 150 },
        onExpired: (approval) => {
          escalated.push({ escalations: approval.escalations, reviewers: approval.reviewers })
          return approval.escalations === 0 ? { reviewers: { users: ['carol'] }, ttlMs: 60_000 } : undefined
        },
      })
      const { threadId, interrupt } = await app.ask('pay 800')
      await new Promise((resolve) => setTimeout(resolve, 200))
      const snapshot = (await (await app.get(`threadId=${threadId}`, 'alice')).json()) as { status: string; interrupts: { id: string; reviewers: unknown; expiresAt: string }[] }
      expect(snapshot.status).toBe('interrupted')
      expect(snapshot.interrupts.map((open) => [open.id, open.reviewers])).toEqual([[interrupt.id, { users: ['carol'] }]])
      expect(Date.parse(snapshot.interrupts[0]!.expiresAt) > Date.now() + 30_000).toBe(true)
      // Asked once per instance that raced to settle it (here the timer and the reader may both); one answer is recorded.
      expect(escalated.length > 0 && escalated.every((call) => call.escalations === 0 && JSON.stringify(call.reviewers) === '{"roles":["finance"]}')).toBe(true)
      const records = await app.handler.decisions(threadId)
      expect(records.map((record) => [record.decision, record.by.id, record.reason])).toEqual([
        ['escalated', 'system', `expired unanswered; now waits for a reviewer (carol) until ${snapshot.interrupts[0]!.expiresAt}`],
      ])
      // Carol is told, with a link of her own.
      for (let i = 0; i < 100 && app.requests.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(app.requests.map((request) => request.reviewers)).toEqual([{ roles: ['finance'] }, { users: ['carol'] }])
      expect(app.requests[1]!.links.map((link) => link.reviewer)).toEqual([{ user: 'carol' }])
      // Bob was a reviewer; now only carol is.
      const before = await app.state(threadId)
      expect(await app.errorOf(await app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, 'bob'))).toEqual({ status: 403, code: 'NOT_A_REVIEWER' })
      expect(await app.state(threadId)).toEqual(before)
      await (await app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, 'carol')).text()
      expect(app.ran).toEqual([{ tool: 'transfer_money', input: { to: 'Bob', amount: 800 } }])
      expect((await app.handler.decisions(threadId)).map((record) => [record.decision, record.by.id])).toEqual([
        ['escalated', 'system'],
        ['approved', 'carol'],
      ])
    }, 60_000)

    it('edits: an edit is a new proposal, asked of the policy again; the requester’s own approval no longer suffices for a larger sum, and it waits for the reviewers it names', async () => {
      const app = reviewedApp(await factory({}))
      const { threadId, interrupt } = await app.ask('send 100 to Bob')
      const edit = { to: 'Eve', amount: 5_000_000 }
      const proposed = await app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true, editedArgs: edit }] }, 'alice')
      expect(proposed.status).toBe(202)
      type Waiting = { id: string; input: unknown; message: string; reviewers: unknown; requestedBy: Principal; approvals?: unknown; proposedBy: { decision: string; by: Principal; editedFields: string[] } }
      const [waiting] = ((await proposed.json()) as { interrupts: Waiting[] }).interrupts
      const { id, input, message, reviewers, requestedBy, approvals, proposedBy } = waiting!
      expect([id, input, message, reviewers, requestedBy.id, approvals]).toEqual([interrupt.id, edit, 'Sends 5000000 EUR to Eve', { roles: ['finance'], required: 2 }, 'alice', undefined])
      expect([proposedBy.decision, proposedBy.by.id, proposedBy.editedFields]).toEqual(['edited', 'alice', ['amount', 'to']])
      expect(app.ran).toEqual([])
      // The reviewers the edit needs are asked, with links for the edited arguments.
      const request = (await app.linksFor(interrupt.id)) && app.requests.find((r) => r.interruptId === interrupt.id)!
      expect([request.arguments, request.reviewers, request.links.length]).toEqual([edit, { roles: ['finance'], required: 2 }, 2])
      const before = await app.state(threadId)
      expect(await app.errorOf(await app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, 'alice'))).toEqual({ status: 403, code: 'REVIEWER_REQUIRED' })
      expect(await app.state(threadId)).toEqual(before)
      const byLink = await app.post({ review: request.links[0]!.token, answer: { interruptId: interrupt.id, approved: true } }, 'bob')
      expect(((await byLink.json()) as { resumed: boolean }).resumed).toBe(false)
      expect(app.ran).toEqual([])
      await (await app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, 'carol')).text()
      await app.idle(threadId)
      expect(app.ran).toEqual([{ tool: 'send_funds', input: edit }])
      const trail = (await app.handler.decisions(threadId)).map((record) => [record.decision, record.by.id, record.args, record.ranArgs])
      expect(trail).toEqual([
        ['edited', 'alice', edit, undefined],
        ['approved', 'bob', edit, undefined],
        ['approved', 'carol', edit, edit],
      ])
    }, 60_000)

    it('edits: one reviewer’s edit of a 5,000 transfer into 5,000,000 does not run on that approval, through the chat, a review link or `decide`', async () => {
      const app = reviewedApp(await factory({}))
      const bob = { id: 'bob', name: 'Bob', roles: ['finance'] }
      const edit = { to: 'Bob', amount: 5_000_000 }
      for (const channel of ['chat', 'review-link', 'api'] as const) {
        const { threadId, interrupt } = await app.ask('send 5000 to Bob')
        const [link] = await app.linksFor(interrupt.id)
        const answer = { interruptId: interrupt.id, approved: true, editedArgs: edit }
        if (channel === 'chat') expect((await app.post({ threadId, resume: [answer] }, 'bob')).status).toBe(202)
        if (channel === 'review-link') expect(((await (await app.post({ review: link!.token, answer }, 'bob')).json()) as { resumed: boolean }).resumed).toBe(false)
        if (channel === 'api') expect((await app.handler.decide({ threadId, interruptId: interrupt.id, decision: 'approved', by: bob, editedArgs: edit })).resumed).toBe(false)
        const snapshot = (await (await app.get(`threadId=${threadId}`, 'alice')).json()) as { interrupts: { input: unknown; reviewers: unknown; approvals: { by: Principal }[] }[] }
        expect(snapshot.interrupts.map((open) => [open.input, open.reviewers, open.approvals.map((given) => given.by.id)])).toEqual([[edit, { roles: ['finance'], required: 2 }, ['bob']]])
        expect(app.ran).toEqual([])
        // His own approval counts once; a second finance reviewer completes it.
        expect(await app.errorOf(await app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, 'bob'))).toEqual({ status: 409, code: 'ALREADY_DECIDED' })
        await (await app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, 'carol')).text()
        await app.idle(threadId)
        expect(app.ran.splice(0)).toEqual([{ tool: 'send_funds', input: edit }])
        expect((await app.handler.decisions(threadId)).map((record) => [record.decision, record.by.id, record.channel, record.ranArgs])).toEqual([
          ['edited', 'bob', channel, undefined],
          ['approved', 'carol', 'chat', edit],
        ])
      }
    }, 60_000)

    it('edits: under a two-person rule every approval that counts is for the same arguments: an edit restarts the quorum; an edit the policy lets pass runs on the editor’s approval', async () => {
      const app = reviewedApp(await factory({}))
      const { threadId, interrupt } = await app.ask('send 20000 to Zed')
      const approve = (as: string, editedArgs?: unknown) => app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true, ...(editedArgs ? { editedArgs } : {}) }] }, as)
      expect((await approve('bob')).status).toBe(202)
      const theft = { to: 'carol', amount: 9_999_999 }
      const edited = await approve('carol', theft)
      expect(edited.status).toBe(202)
      const [waiting] = ((await edited.json()) as { interrupts: { input: unknown; approvals: { by: Principal; argsDigest: string }[] }[] }).interrupts
      // Bob approved 20,000 to Zed, not this: only carol's approval counts for it.
      expect([waiting!.input, waiting!.approvals.map((given) => given.by.id)]).toEqual([theft, ['carol']])
      expect(app.ran).toEqual([])
      const records = await app.handler.decisions(threadId)
      expect(records.map((record) => [record.decision, record.by.id, record.args])).toEqual([
        ['approved', 'bob', { to: 'Zed', amount: 20000 }],
        ['edited', 'carol', theft],
      ])
      expect(waiting!.approvals[0]!.argsDigest).toBe(records[1]!.argsDigest)
      await (await approve('bob')).text()
      await app.idle(threadId)
      expect(app.ran).toEqual([{ tool: 'send_funds', input: theft }])
      expect((await app.handler.decisions(threadId)).map((record) => record.argsDigest).slice(1)).toEqual([records[1]!.argsDigest, records[1]!.argsDigest])

      // Edited to what needs no approval at all: the editor's approval suffices.
      const small = await app.ask('send 20000 to Zed', 'alice', threadId)
      await (await app.post({ threadId, resume: [{ interruptId: small.interrupt.id, approved: true, editedArgs: { to: 'Zed', amount: 5 } }] }, 'bob')).text()
      await app.idle(threadId)
      expect(app.ran.at(-1)).toEqual({ tool: 'send_funds', input: { to: 'Zed', amount: 5 } })
    }, 60_000)

    it('context: a resumed tool acts for its requester whoever approved (chat, review link, `decide`), and `ctx.decision` says who approved and how', async () => {
      const app = reviewedApp(await factory({}))
      const bob = { id: 'bob', name: 'Bob', roles: ['finance'] }
      const seen = () => app.acted.splice(0).map(({ context, decision }) => [context, decision?.decision, decision?.by.id, decision?.channel])
      const own = await app.ask('send 100 to Bob')
      await (await app.post({ threadId: own.threadId, resume: [{ interruptId: own.interrupt.id, approved: true }] }, 'alice')).text()
      expect(seen()).toEqual([[{ user: 'alice' }, 'approved', 'alice', 'chat']])
      const chat = await app.ask('send 5000 to Bob')
      await (await app.post({ threadId: chat.threadId, resume: [{ interruptId: chat.interrupt.id, approved: true }] }, 'bob')).text()
      expect(seen()).toEqual([[{ user: 'alice' }, 'approved', 'bob', 'chat']])
      const linked = await app.ask('send 6000 to Bob')
      const [link] = await app.linksFor(linked.interrupt.id)
      await (await app.post({ review: link!.token, answer: { interruptId: linked.interrupt.id, approved: true } }, 'carol')).text()
      await app.idle(linked.threadId)
      expect(seen()).toEqual([[{ user: 'alice' }, 'approved', 'carol', 'review-link']])
      const decided = await app.ask('send 7000 to Bob', 'dave')
      await app.handler.decide({ threadId: decided.threadId, interruptId: decided.interrupt.id, decision: 'approved', by: bob, editedArgs: { to: 'Bob', amount: 6500 } })
      await app.idle(decided.threadId)
      expect(seen()).toEqual([[{ user: 'dave' }, 'edited', 'bob', 'api']])
      // A call run under a grant acts for the requester too, and says whose grant.
      const granted = await app.ask('send 200 to Ann')
      await (await app.post({ threadId: granted.threadId, resume: [{ interruptId: granted.interrupt.id, approved: true, grant: {} }] }, 'alice')).text()
      expect((await app.ask('send 300 to Ann', 'alice', granted.threadId)).interrupt).toBeUndefined()
      expect(seen()).toEqual([
        [{ user: 'alice' }, 'approved', 'alice', 'chat'],
        [{ user: 'alice' }, 'granted', 'alice', 'api'],
      ])
    }, 60_000)

    it('grants: a grant given for a while ends then: the next call asks again', async () => {
      const app = reviewedApp(await factory({}))
      const first = await app.ask('email ann')
      const { threadId } = first
      await (await app.post({ threadId, resume: [{ interruptId: first.interrupt.id, approved: true, grant: { ttlMs: 1500 } }] }, 'alice')).text()
      const [grant] = await app.handler.grants(threadId)
      expect(Date.parse(grant!.expiresAt!) - Date.parse(grant!.at)).toBe(1500)
      expect((await app.ask('email bob', 'alice', threadId)).interrupt).toBeUndefined()
      await new Promise((resolve) => setTimeout(resolve, Date.parse(grant!.expiresAt!) - Date.now() + 50))
      expect(typeof (await app.ask('email cat', 'alice', threadId)).interrupt?.id).toBe('string')
      expect(app.ran.map((call) => call.input)).toEqual([{ to: 'ann' }, { to: 'bob' }])
    }, 60_000)

    it('expiry: an escalation starts the quorum again: approvals given while the old reviewers decided do not count for the new ones', async () => {
      const app = reviewedApp(await factory({}), {
        limits: { interruptTtlMs: 1000 },
        onExpired: (approval) => (approval.escalations === 0 ? { reviewers: { roles: ['finance', 'sales'], required: 2 }, ttlMs: 60_000 } : undefined),
      })
      const { threadId, interrupt } = await app.ask('wire 9000')
      const approve = (as: string) => app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: true }] }, as)
      expect((await approve('bob')).status).toBe(202)
      const approvedAt = Date.parse((await app.handler.decisions(threadId))[0]!.at)
      await new Promise((resolve) => setTimeout(resolve, approvedAt + 1100 - Date.now()))
      const snapshot = (await (await app.get(`threadId=${threadId}`, 'alice')).json()) as { interrupts: { reviewers: unknown; approvals?: unknown[] }[] }
      expect(snapshot.interrupts.map((open) => [open.reviewers, open.approvals])).toEqual([[{ roles: ['finance', 'sales'], required: 2 }, undefined]])
      expect((await approve('carol')).status).toBe(202)
      expect(app.ran).toEqual([])
      await (await approve('dave')).text()
      expect(app.ran).toEqual([{ tool: 'wire_funds', input: { to: 'Zed', amount: 9000 } }])
    }, 60_000)

    it('reviewers: a denial is held to the reviewer rules too: someone outside the roles cannot deny a reviewer-only call, and the record never shows it', async () => {
      const app = reviewedApp(await factory({}))
      const { threadId, interrupt } = await app.ask('pay 500')
      const before = await app.state(threadId)
      const deny = (as: string) => app.post({ threadId, resume: [{ interruptId: interrupt.id, approved: false, reason: 'no' }] }, as)
      expect(await app.errorOf(await deny('dave'))).toEqual({ status: 403, code: 'NOT_A_REVIEWER' })
      expect(await app.errorOf(await deny(''))).toEqual({ status: 403, code: 'NOT_A_REVIEWER' })
      expect(await app.errorOf(await deny('alice'))).toEqual({ status: 403, code: 'REVIEWER_REQUIRED' })
      expect(await app.refusalOf(app.handler.decide({ threadId, interruptId: interrupt.id, decision: 'denied', by: { id: 'dave', roles: ['sales'] } }))).toEqual({
        status: 403,
        code: 'NOT_A_REVIEWER',
        path: 'interruptId',
      })
      expect(await app.state(threadId)).toEqual(before)
      expect(before.decisions).toEqual([])
      await (await deny('bob')).text()
      expect((await app.handler.decisions(threadId)).map((record) => [record.decision, record.by.id])).toEqual([['denied', 'bob']])
    }, 60_000)

    it('review links: a role’s link serves one approver, also while a two-person rule still waits for the second', async () => {
      const app = reviewedApp(await factory({}))
      const { threadId, interrupt } = await app.ask('wire 7000')
      const [first, second] = await app.linksFor(interrupt.id)
      const review = (token: string, as: string) => app.post({ review: token, answer: { interruptId: interrupt.id, approved: true } }, as)
      expect(((await (await review(first!.token, 'bob')).json()) as { resumed: boolean }).resumed).toBe(false)
      const afterBob = await app.state(threadId)
      // Bob forwarded his link to carol: it was used.
      expect(await app.errorOf(await review(first!.token, 'carol'))).toEqual({ status: 409, code: 'REVIEW_LINK_USED' })
      expect(await app.errorOf(await app.get(`review=${encodeURIComponent(first!.token)}`, 'carol'))).toEqual({ status: 409, code: 'REVIEW_LINK_USED' })
      expect(await app.state(threadId)).toEqual(afterBob)
      expect(app.ran).toEqual([])
      expect(((await (await review(second!.token, 'carol')).json()) as { resumed: boolean }).resumed).toBe(true)
      await app.idle(threadId)
      expect(app.ran).toEqual([{ tool: 'wire_funds', input: { to: 'Zed', amount: 7000 } }])
    }, 60_000)

    it('grants: cover later calls of the same tool only, never widen past their author, and stop when revoked', async () => {
      const app = reviewedApp(await factory({}))
      const first = await app.ask('email ann')
      const threadId = first.threadId
      await (await app.post({ threadId, resume: [{ interruptId: first.interrupt.id, approved: true, grant: {} }] }, 'alice')).text()
      const [grant] = await app.handler.grants(threadId)
      expect(grant!.toolName).toBe('send_email')
      expect(grant!.by.id).toBe('alice')
      // Covered: runs without asking, recorded as run under the grant by its author.
      expect((await app.ask('email bob', 'alice', threadId)).interrupt).toBeUndefined()
      // Another tool is not covered, and alice's grant cannot stand in for a reviewer.
      const pay = await app.ask('pay 10', 'alice', threadId)
      expect(typeof pay.interrupt.id).toBe('string')
      expect(app.ran.map((call) => call.tool)).toEqual(['send_email', 'send_email'])
      const trail = (await app.handler.decisions(threadId)).map((record) => [record.decision, record.by.id, record.grantId])
      expect(trail).toEqual([
        ['approved', 'alice', grant!.id],
        ['granted', 'alice', grant!.id],
      ])

      // A reviewer's grant covers the calls they could have approved: not the ones they ask for themselves, not a two-person rule.
      const payAgain = await app.ask('pay 20', 'alice', threadId)
      await (await app.post({ threadId, resume: [{ interruptId: payAgain.interrupt.id, approved: true, grant: { ttlMs: 60_000 } }] }, 'bob')).text()
      expect((await app.ask('pay 30', 'alice', threadId)).interrupt).toBeUndefined()
      expect(typeof (await app.ask('pay 40', 'bob', threadId)).interrupt.id).toBe('string')
      expect(typeof (await app.ask('wire 50', 'alice', threadId)).interrupt.id).toBe('string')

      // Revoked: the next call asks again; revoking again is refused and changes nothing.
      const revoked = await app.post({ threadId, revokeGrant: grant!.id }, 'alice')
      expect(revoked.status).toBe(200)
      expect(typeof (await app.ask('email cat', 'alice', threadId)).interrupt.id).toBe('string')
      const before = await app.state(threadId)
      expect(await app.errorOf(await app.post({ threadId, revokeGrant: grant!.id }, 'alice'))).toEqual({ status: 404, code: 'GRANT_NOT_FOUND' })
      expect(await app.state(threadId)).toEqual(before)
      expect(app.ran.filter((call) => call.tool === 'send_email').length).toBe(2)
    }, 60_000)

    outOfBandChecks(factory, { it, expect })
    readOnlyCallChecks(factory, { it, expect })

    it('applies exactly one of 100 concurrent identical answers, and runs the tool once', async () => {
      const store = await factory({})
      let ran = 0
      const transfer = toolDefinition({
        name: 'transfer_money',
        description: 'Sends money',
        inputSchema: v.object({ to: v.string() }),
        needsApproval: true,
      }).server(async () => {
        ran++
        return { ok: true }
      })
      const model = scriptedModel([{ when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob' } }), then: () => 'paid' }])
      const handler = createChatHandler({ model, tools: [transfer], store })
      const post = (body: unknown) =>
        handler(new Request('http://test/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
      const first = await (await post({ message: 'pay Bob' })).text()
      const events = first.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
      const threadId = events[0].threadId as string
      const interruptId = events.at(-1).outcome.interrupts[0].id as string
      const answers = await Promise.all(
        Array.from({ length: 100 }, async () => {
          const response = await post({ threadId, resume: [{ interruptId, approved: true }] })
          await response.text()
          return response.status
        }),
      )
      expect(answers.filter((status) => status === 200).length).toBe(1)
      expect(answers.filter((status) => status === 409).length).toBe(99)
      expect(ran).toBe(1)
    }, 60_000)
  })
}
