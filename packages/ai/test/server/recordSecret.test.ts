import { afterEach, describe, expect, it, vi } from 'vitest'
import { createChatHandler, memoryStore, scriptedModel, verifyDecisionRecords, type ThreadStore } from '@toolgate/ai/server'
import type { DecisionRecord } from '@toolgate/ai/protocol'
import { transferDef } from './fixtures.ts'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

// `decisions: { secret }`: how the decision records are signed, what is checked at startup, and the
// reads beside the conformance suite's (the devtools). The forgeries themselves, on every store,
// are in the conformance suite (server/testing/recordForgery.ts).

afterEach(closeAll)
afterEach(() => vi.restoreAllMocks())

const SECRET = 'records-secret-0123456789-abcdefghijkl'
const model = scriptedModel([{ when: /send (\d+)/, call: (m) => ({ tool: 'transfer_money', input: { to: 'Bob', amount: Number(m[1]) } }), then: ([r]) => `${r.status}` }])
const tool = transferDef.server(async () => ({ receipt: 'r' }))

/** A thread with one approval on `store` (given to a handler with `options`), and the records as stored. */
async function approved(store: ThreadStore, options: { decisions?: { secret: string }; devtools?: true } = {}) {
  const server = await startServer({ model, tools: [tool], store, ...options })
  const turn = await server.send('send 500')
  await server.resume(turn.threadId, [{ interruptId: turn.interrupts[0]!.id, approved: true }])
  return { server, threadId: turn.threadId, records: await store.decisions(turn.threadId) }
}

describe('decisions: { secret }', () => {
  it('signs each record with an HMAC the secret alone verifies; without a secret the chain stays plain SHA-256', async () => {
    const signed = await approved(memoryStore(), { decisions: { secret: SECRET } })
    expect(signed.records.map((record) => record.digest.slice(0, 12))).toEqual(['hmac-sha256:'])
    expect(await verifyDecisionRecords(signed.records, { secret: SECRET })).toEqual({ count: 1, last: signed.records[0]!.digest })
    const plain = await approved(memoryStore())
    expect(plain.records.map((record) => record.digest.slice(0, 7))).toEqual(['sha256:'])
    // A plain record is not one the secret signed.
    await expect(verifyDecisionRecords(plain.records, { secret: SECRET })).rejects.toMatchObject({ code: 'DECISION_RECORD_ALTERED', path: 'decisions[0]' })
  })

  it('is checked at startup: a short secret is refused naming the option', () => {
    expect(() => createChatHandler({ model, decisions: { secret: 'short' } })).toThrow(/decisions\.secret.*32 bytes/)
    expect(() => createChatHandler({ model, decisions: 'x' as never })).toThrow(/decisions/)
  })

  it('warns once at start when decisions are recorded without a secret, and not with one', () => {
    const warnings: string[] = []
    vi.spyOn(process, 'emitWarning').mockImplementation(((_message: string, options: { code: string }) => void warnings.push(options.code)) as never)
    createChatHandler({ model, onDecision: () => {}, decisions: { secret: SECRET } })
    createChatHandler({ model, onApprovalRequested: () => {}, reviewLinks: { secret: SECRET } })
    expect(warnings).toEqual([])
    createChatHandler({ model, onDecision: () => {} })
    createChatHandler({ model, onApprovalRequested: () => {} })
    expect(warnings).toEqual(['TOOLGATE_UNSIGNED_DECISIONS'])
  })

  it('the devtools refuse a thread whose records were removed while its calls still show them', async () => {
    const inner = memoryStore()
    let forged = false
    const store: ThreadStore = {
      ...inner,
      head: async (id) => {
        const head = await inner.head(id)
        return forged && head ? { ...head, decisions: undefined } : head
      },
      decisions: async (id) => (forged ? ([] as DecisionRecord[]) : inner.decisions(id)),
    }
    const { server, threadId } = await approved(store, { decisions: { secret: SECRET }, devtools: true })
    const devtools = () => fetch(`${server.url}?threadId=${threadId}&devtools`)
    expect((await devtools()).status).toBe(200)
    forged = true
    expect(await errorOf(await devtools())).toMatchObject({ status: 500, error: { code: 'DECISION_RECORD_ALTERED' } })
  })
})
