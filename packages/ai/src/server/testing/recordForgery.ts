import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { digestOf } from '../../util/digest.ts'
import type { ThreadHead, ThreadStore } from '../thread/threadStore.ts'
import { verifyDecisionRecords } from '../decisions/verifyDecisionRecords.ts'
import { LINK_SECRET, reviewedApp } from './approvalAttacks.ts'

// What someone who can write the store, but does not hold the app's secret, can do to a thread's
// decision records, and what the handler says when it next reads them: each forgery is refused
// with `DECISION_RECORD_ALTERED` on every path that returns records or shows decisions. The
// forger rewrites what the store answers for one thread (its head, records and messages, as a
// writer of Redis keys or PostgreSQL rows would) over the real store; an appended record is
// written through the store's own commit.

interface Stored {
  head: ThreadHead
  records: DecisionRecord[]
  messages: ThreadMessage[]
}

/** The store, and a forger that rewrites what it holds for a thread. */
function forgeable(inner: ThreadStore) {
  const forged = new Map<string, Stored>()
  const store: ThreadStore = {
    ...inner,
    head: async (threadId) => forged.get(threadId)?.head ?? inner.head(threadId),
    decisions: async (threadId) => forged.get(threadId)?.records ?? inner.decisions(threadId),
    messages: async (threadId, from, to) => forged.get(threadId)?.messages.slice(from, to) ?? inner.messages(threadId, from, to),
  }
  const rewrite = async (threadId: string, change: (stored: Stored) => Promise<Stored> | Stored) => {
    const head = (await inner.head(threadId))!
    const stored = { head, records: [...(await inner.decisions(threadId))], messages: [...(await inner.messages(threadId, 0, head.messageCount))] }
    forged.set(threadId, await change(stored))
  }
  return { store, rewrite }
}

/** The chain recomputed as a forger can: each record's digest over its body, linked, without the secret. */
async function rechained(records: readonly DecisionRecord[]): Promise<DecisionRecord[]> {
  const chained: DecisionRecord[] = []
  let previous: string | null = null
  for (const [seq, { digest: _, ...record }] of records.entries()) {
    const body = { ...record, seq, previous }
    const next: DecisionRecord = { ...body, digest: await digestOf(body) }
    chained.push(next)
    previous = next.digest
  }
  return chained
}

const tipOf = (records: readonly DecisionRecord[]) => (records.length === 0 ? undefined : { count: records.length, last: records.at(-1)!.digest })

/** The conformance suite's runner and factory (conformance.ts), as this part of it uses them. */
interface Runner {
  describe(name: string, body: () => void): void
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void
  expect(value: unknown, message?: string): { toBe(expected: unknown): void; toEqual(expected: unknown): void }
}

/** Part of `threadStoreConformance`: the forgeries of issue 36, each refused on the given store. */
export function recordForgeryChecks(factory: (options: object) => ThreadStore | Promise<ThreadStore>, { describe, it, expect }: Runner): void {
  /** A thread where bob approved a transfer that ran, then carol denied the next: two signed records, shown on the calls. */
  const decided = async () => {
    const { store, rewrite } = forgeable(await factory({}))
    const app = reviewedApp(store)
    const first = await app.ask('pay 500')
    await (await app.post({ threadId: first.threadId, resume: [{ interruptId: first.interrupt.id, approved: true }] }, 'bob')).text()
    const second = await app.ask('pay 900', 'alice', first.threadId)
    await (await app.post({ threadId: first.threadId, resume: [{ interruptId: second.interrupt.id, approved: false, reason: 'too much' }] }, 'carol')).text()
    await app.idle(first.threadId)
    const records = await app.handler.decisions(first.threadId)
    expect(records.map((record) => [record.decision, record.by.id])).toEqual([
      ['approved', 'bob'],
      ['denied', 'carol'],
    ])
    for (let i = 0; i < 100 && app.recorded.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    return { app, store, rewrite, threadId: first.threadId, records }
  }

  /** Every path that returns records or shows decisions refuses. */
  const expectRefused = async (app: ReturnType<typeof reviewedApp>, threadId: string) => {
    const refusal = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { error?: { code?: string } }).error?.code })
    expect(await refusal(await app.get(`threadId=${threadId}&decisions`, 'alice'))).toEqual({ status: 500, code: 'DECISION_RECORD_ALTERED' })
    const thrown = await app.refusalOf(app.handler.decisions(threadId))
    expect(typeof thrown === 'object' && [thrown.status, thrown.code]).toEqual([500, 'DECISION_RECORD_ALTERED'])
    expect(await refusal(await app.get(`threadId=${threadId}`, 'alice'))).toEqual({ status: 500, code: 'DECISION_RECORD_ALTERED' })
    expect(await refusal(await app.get(`threadId=${threadId}&limit=2`, 'alice'))).toEqual({ status: 500, code: 'DECISION_RECORD_ALTERED' })
    expect(await refusal(await app.get(`threadId=${threadId}&format=ai-sdk`, 'alice'))).toEqual({ status: 500, code: 'DECISION_RECORD_ALTERED' })
  }

  describe('decision records: what a store writer without the secret cannot do', () => {
    it('an approval rewritten as someone else’s, with the chain, the head’s tip and the call’s part recomputed, is refused', async () => {
      const { app, rewrite, threadId } = await decided()
      await rewrite(threadId, async ({ head, records, messages }) => {
        const mallory = { id: 'carol', name: 'Carol', roles: ['finance'] }
        const chain = await rechained(records.map((record, index) => (index === 0 ? { ...record, by: mallory } : record)))
        const shown = messages.map((message) => (message.role === 'tool' && message.decision?.by.id === 'bob' ? { ...message, decision: { ...message.decision, by: mallory } } : message))
        return { head: { ...head, decisions: tipOf(chain) }, records: chain, messages: shown }
      })
      await expectRefused(app, threadId)
    })

    it('every record removed, with the head’s tip, is refused: the thread’s calls show decisions no record keeps', async () => {
      const { app, rewrite, threadId } = await decided()
      await rewrite(threadId, ({ head, messages }) => ({ head: { ...head, decisions: undefined }, records: [], messages }))
      await expectRefused(app, threadId)
    })

    it('the last record (a denial) dropped, with the head’s tip set back, is refused', async () => {
      const { app, rewrite, threadId } = await decided()
      await rewrite(threadId, ({ head, records, messages }) => {
        const kept = records.slice(0, -1)
        return { head: { ...head, decisions: tipOf(kept) }, records: kept, messages }
      })
      await expectRefused(app, threadId)
    })

    it('an approval by someone who never decided, appended through the store’s own commit with the tip moved on, is refused', async () => {
      const { app, store, threadId, records } = await decided()
      const head = (await store.head(threadId))!
      const last = records.at(-1)!
      const { digest: _, ...body } = { ...last, seq: records.length, previous: last.digest, decision: 'approved' as const, by: { id: 'dave', name: 'Dave', roles: ['finance'] }, reason: undefined, ranArgs: last.shownArgs, ranDigest: last.shownDigest }
      const forged: DecisionRecord = { ...body, digest: await digestOf(body) }
      const written = await store.commit({ head: { ...head, version: head.version + 1, decisions: { count: records.length + 1, last: forged.digest } }, append: [], decisions: [forged] })
      expect(written).toBe(true)
      await expectRefused(app, threadId)
    })

    it('verifyDecisionRecords: the records check out under the secret, and a trimmed tail is caught against what onDecision exported', async () => {
      const { app, records, threadId } = await decided()
      expect(app.recorded.filter((record) => record.threadId === threadId)).toEqual([...records])
      expect(await verifyDecisionRecords(records, { secret: LINK_SECRET, exported: app.recorded })).toEqual({ count: 2, last: records[1]!.digest })
      // Trimmed consistently (records, tip and messages rewritten alike), the store alone cannot tell; the exported copy can.
      expect(await app.refusalOf(verifyDecisionRecords(records.slice(0, 1), { secret: LINK_SECRET, exported: app.recorded }))).toEqual({ status: 500, code: 'DECISION_RECORD_ALTERED', path: 'decisions[1]' })
      expect(await app.refusalOf(verifyDecisionRecords([], { secret: LINK_SECRET, exported: app.recorded, threadId }))).toEqual({ status: 500, code: 'DECISION_RECORD_ALTERED', path: 'decisions[0]' })
      // Another secret (a forger's guess) signs nothing the handler wrote.
      expect(await app.refusalOf(verifyDecisionRecords(records, { secret: 'not-the-secret-0123456789-abcdefghijkl' }))).toEqual({ status: 500, code: 'DECISION_RECORD_ALTERED', path: 'decisions[0]' })
    })
  })
}
