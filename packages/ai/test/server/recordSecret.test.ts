import * as v from 'valibot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler, memoryStore, type ThreadStore, verifyDecisionRecords } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
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

  it('warns once when decisions are recorded without a secret (a call first waiting for reviewers, or audit hooks at start), never with one', async () => {
    const warnings: string[] = []
    vi.spyOn(process, 'emitWarning').mockImplementation(((_message: string, options: { code: string }) => void warnings.push(options.code)) as never)
    createChatHandler({ model, onDecision: () => {}, decisions: { secret: SECRET } })
    createChatHandler({ model, onApprovalRequested: () => {}, reviewLinks: { secret: SECRET } })
    const reviewer = toolDefinition({
      name: 'transfer_money',
      description: 'Sends money',
      inputSchema: v.object({ to: v.string(), amount: v.number() }),
      needsApproval: () => ({ reason: 'finance decides', reviewers: { roles: ['finance'] } }),
    }).server(async () => ({ receipt: 'r' }))
    const signed = await startServer({ model, tools: [reviewer], decisions: { secret: SECRET } })
    await signed.send('send 500')
    expect(warnings).toEqual([])
    // No hooks, so nothing to say at start; the first call that waits for reviewers says it.
    const unsigned = await startServer({ model, tools: [reviewer] })
    expect(warnings).toEqual([])
    await unsigned.send('send 500')
    expect(warnings).toEqual(['TOOLGATE_UNSIGNED_DECISIONS'])
    await unsigned.send('send 600')
    createChatHandler({ model, onDecision: () => {} })
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
