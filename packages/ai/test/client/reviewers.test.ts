import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { toolDefinition } from '@toolgate/ai'
import { createChatClient } from '@toolgate/ai/client'
import { type ApprovalRequest, createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import type { Principal } from '@toolgate/ai/protocol'
import { toolCalls } from './helpers.ts'

const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: (input) => ({ reason: `Sends ${input.amount} EUR to ${input.to}`, reviewers: { roles: ['finance'] } }),
})
const PEOPLE: Record<string, Principal> = { alice: { id: 'alice', name: 'Alice' }, bob: { id: 'bob', name: 'Bob', roles: ['finance'] } }

function app() {
  const requests: ApprovalRequest[] = []
  const handler = createChatHandler({
    model: scriptedModel([{ when: /pay (\d+)/, call: (m) => ({ tool: 'transfer_money', input: { to: 'Eve', amount: Number(m[1]) } }), then: ([r]) => `pay: ${r.status}` }], { tools: [transfer] }),
    tools: [transfer.server(async ({ to }) => ({ receipt: `r-${to}` }))],
    identify: (request) => PEOPLE[request.headers.get('x-session') ?? ''],
    reviewLinks: { secret: 'client-test-secret-0123456789-abcdefgh' },
    onApprovalRequested: (request) => void requests.push(request),
  })
  /** A browser signed in as `who`: its requests carry the session the app's `identify` reads. */
  const as = (who: string) => (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(new URL(String(input), 'http://test'), init)
    request.headers.set('x-session', who)
    return handler(request)
  }
  return { handler, requests, as }
}

describe('approvals decided by a reviewer', () => {
  it('the chat shows whom the call waits for, then follows the run a reviewer resumed through a link, and shows who approved', async () => {
    const { requests, as } = app()
    const client = createChatClient({ endpoint: '/api/chat', tools: [transfer], fetch: as('alice'), reviewPollMs: 20, scheduleNotify: (flush) => flush() })
    await client.send('pay 900')
    const [waiting] = toolCalls(client.getSnapshot())
    expect(waiting).toMatchObject({ state: 'approval-requested', approval: { reason: 'Sends 900 EUR to Eve', waitingFor: 'finance', requestedBy: { id: 'alice', name: 'Alice' } } })

    // Bob opens the link from the notification and approves, in another browser.
    await expect.poll(() => requests.length).toBe(1)
    const [link] = requests[0]!.links
    const view = await as('bob')(`/api/chat?review=${link!.token}`)
    expect(((await view.json()) as { interrupt: { input: unknown } }).interrupt.input).toEqual({ to: 'Eve', amount: 900 })
    const decided = await as('bob')('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ review: link!.token, answer: { interruptId: requests[0]!.interruptId, approved: true } }) })
    expect(decided.status).toBe(200)

    await expect.poll(() => toolCalls(client.getSnapshot())[0]?.state, { timeout: 5000 }).toBe('output-available')
    await expect.poll(() => client.getSnapshot().status).toBe('idle')
    const [done] = toolCalls(client.getSnapshot())
    expect(done!.decision).toEqual({ decision: 'approved', by: { id: 'bob', name: 'Bob', roles: ['finance'] }, at: expect.any(String), channel: 'review-link' })
    expect(client.getSnapshot().messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'pay: success' }])
  })

  it('learns of the decision by push: it waits on `GET ?watch` (no pause between looks) and reads the thread only when it changed', async () => {
    const { requests, as } = app()
    const asked: string[] = []
    const alice = as('alice')
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method !== 'POST') asked.push(new URL(String(input), 'http://test').searchParams.has('watch') ? 'watch' : 'read')
      return alice(input, init)
    }
    // A minute between looks: only a push can bring the decision within the test's time.
    const client = createChatClient({ endpoint: '/api/chat', tools: [transfer], fetch, reviewPollMs: 60_000, scheduleNotify: (flush) => flush() })
    await client.send('pay 900')
    await expect.poll(() => requests.length).toBe(1)
    // The watch asks the version (answered at once), reads the thread once, then waits.
    await expect.poll(() => asked).toEqual(['watch', 'read', 'watch'])
    const [link] = requests[0]!.links
    await as('bob')('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ review: link!.token, answer: { interruptId: requests[0]!.interruptId, approved: true } }) })
    await expect.poll(() => toolCalls(client.getSnapshot())[0]?.state, { timeout: 5000 }).toBe('output-available')
    expect(toolCalls(client.getSnapshot())[0]!.decision).toMatchObject({ decision: 'approved', by: { id: 'bob' } })
    expect(asked.slice(0, 4)).toEqual(['watch', 'read', 'watch', 'read'])
  })

  it('follows an expiry while it waits, without sending anything: escalated to new reviewers, then expired', async () => {
    const handler = createChatHandler({
      model: scriptedModel([{ when: /pay/, call: () => ({ tool: 'transfer_money', input: { to: 'Eve', amount: 5 } }), then: ([r]) => r.content }], { tools: [transfer] }),
      tools: [transfer.server(async ({ to }) => ({ receipt: `r-${to}` }))],
      identify: () => PEOPLE.alice,
      limits: { interruptTtlMs: 100 },
      onExpired: (approval) => (approval.escalations === 0 ? { reviewers: { users: ['carol'] }, ttlMs: 200 } : undefined),
    })
    const client = createChatClient({ endpoint: '/api/chat', tools: [transfer], fetch: (input, init) => handler(new Request(new URL(String(input), 'http://test'), init)), reviewPollMs: 20, scheduleNotify: (flush) => flush() })
    await client.send('pay')
    expect(toolCalls(client.getSnapshot())[0]?.approval?.waitingFor).toBe('finance')
    await expect.poll(() => toolCalls(client.getSnapshot())[0]?.approval?.waitingFor, { timeout: 5000 }).toBe('carol')
    await expect.poll(() => toolCalls(client.getSnapshot())[0]?.state, { timeout: 5000 }).toBe('expired')
    expect(toolCalls(client.getSnapshot())[0]?.decision).toMatchObject({ decision: 'expired', by: { id: 'system' } })
  })

  it('shows an expired approval as expired, not denied', async () => {
    const handler = createChatHandler({
      model: scriptedModel([{ when: /pay/, call: () => ({ tool: 'transfer_money', input: { to: 'Eve', amount: 5 } }), then: ([r]) => r.content }, { when: /hi/, reply: 'hello' }], { tools: [transfer] }),
      tools: [transfer.server(async ({ to }) => ({ receipt: `r-${to}` }))],
      limits: { interruptTtlMs: 30 },
    })
    const client = createChatClient({ endpoint: '/api/chat', tools: [transfer], fetch: (input, init) => handler(new Request(new URL(String(input), 'http://test'), init)), scheduleNotify: (flush) => flush() })
    await client.send('pay')
    await new Promise((resolve) => setTimeout(resolve, 50))
    await client.send('hi')
    await client.load()
    expect(toolCalls(client.getSnapshot()).map((part) => part.state)).toEqual(['expired'])
  })
})
