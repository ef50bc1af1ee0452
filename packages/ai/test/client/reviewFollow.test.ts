import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { afterEach, describe, expect, it } from 'vitest'
import { toolDefinition } from '@toolgate/ai'
import { createChatClient } from '@toolgate/ai/client'
import { type ApprovalRequest, createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import type { Principal } from '@toolgate/ai/protocol'
import { toolCalls } from './helpers.ts'

// The requester's page follows a thread whose call waits for a reviewer, over real HTTP, with the
// plain client: whatever she does on it (an Approve the server refuses, a request that fails,
// stop()), a reviewer's decision made elsewhere reaches it by push.

const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: (input) => ({ reason: `Sends ${input.amount} EUR to ${input.to}`, reviewers: { roles: ['finance'] } }),
})
const PEOPLE: Record<string, Principal> = { alice: { id: 'alice', name: 'Alice' }, bob: { id: 'bob', name: 'Bob', roles: ['finance'] } }

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

async function app() {
  const requests: ApprovalRequest[] = []
  const handler = createChatHandler({
    model: scriptedModel([{ when: /pay (\d+)/, call: (m) => ({ tool: 'transfer_money', input: { to: 'Eve', amount: Number(m[1]) } }), then: ([r]) => `pay: ${r.status}` }], { tools: [transfer] }),
    tools: [transfer.server(async ({ to }) => ({ receipt: `r-${to}` }))],
    identify: (request) => PEOPLE[request.headers.get('x-session') ?? ''],
    reviewLinks: { secret: 'client-test-secret-0123456789-abcdefgh' },
    onApprovalRequested: (request) => void requests.push(request),
  })
  let down = false
  const server = createServer((request, response) => {
    // A proxy in front that fails while `down`: the thread itself is untouched.
    if (down) return void response.writeHead(502, { 'content-type': 'text/plain' }).end('Bad gateway')
    toNodeHandler(handler)(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`
  /** A browser signed in as `who`: its requests carry the session the app's `identify` reads. */
  const as = (who: string) => (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers)
    headers.set('x-session', who)
    return fetch(input, { ...init, headers })
  }
  const reviewerApproves = async () => {
    const [link] = requests[0]!.links
    const decided = await as('bob')(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ review: link!.token, answer: { interruptId: requests[0]!.interruptId, approved: true } }),
    })
    expect(decided.status).toBe(200)
  }
  // A minute between looks after a failed one: only the push watch brings the decision within the test's time.
  const alice = createChatClient({ endpoint, tools: [transfer], fetch: as('alice'), reviewPollMs: 60_000, user: PEOPLE.alice, scheduleNotify: (flush) => flush() })
  return { alice, requests, reviewerApproves, setDown: (value: boolean) => void (down = value) }
}

describe('the requester follows a call that waits for a reviewer', () => {
  it('after her own Approve is refused: the error names the tool, and the reviewer\'s approval still reaches her page', async () => {
    const { alice, requests, reviewerApproves } = await app()
    await alice.send('pay 900')
    await expect.poll(() => requests.length).toBe(1)
    const [waiting] = toolCalls(alice.getSnapshot())
    expect(waiting).toMatchObject({ state: 'approval-requested', approval: { waitingFor: 'finance', requestedBy: { id: 'alice' } } })

    await alice.approve(waiting!.toolCallId)
    const { error } = alice.getSnapshot()
    expect(error?.code).toBe('REVIEWER_REQUIRED')
    expect(error?.message).toBe('"transfer_money" waits for a reviewer (finance); the person who asked for it may not decide it')
    expect(error?.message).not.toContain(requests[0]!.interruptId)
    // Her answer was not taken: the call waits as before.
    expect(toolCalls(alice.getSnapshot())[0]!.state).toBe('approval-requested')

    await reviewerApproves()
    await expect.poll(() => toolCalls(alice.getSnapshot())[0]?.state, { timeout: 4000 }).toBe('output-available')
    expect(toolCalls(alice.getSnapshot())[0]!.decision).toMatchObject({ decision: 'approved', by: { id: 'bob' }, channel: 'review-link' })
    expect(alice.getSnapshot().messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'pay: success' }])
  })

  it('after a request that failed on the way (a 502 from a proxy) and after stop()', async () => {
    const { alice, requests, reviewerApproves, setDown } = await app()
    await alice.send('pay 900')
    await expect.poll(() => requests.length).toBe(1)
    setDown(true)
    await alice.load()
    expect(alice.getSnapshot().error).toBeDefined()
    setDown(false)
    alice.stop()
    await reviewerApproves()
    await expect.poll(() => toolCalls(alice.getSnapshot())[0]?.state, { timeout: 4000 }).toBe('output-available')
  })

  it('says the call waits for "you" on the page of a reviewer who may decide it, and lets them decide there', async () => {
    const { alice, requests } = await app()
    await alice.send('pay 900')
    await expect.poll(() => requests.length).toBe(1)
    const threadId = alice.getSnapshot().threadId!
    const base = servers[0]!.address() as AddressInfo
    const bob = createChatClient({
      endpoint: `http://127.0.0.1:${base.port}/api/chat`,
      tools: [transfer],
      threadId,
      user: PEOPLE.bob,
      fetch: (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'x-session': 'bob' } }),
      scheduleNotify: (flush) => flush(),
    })
    await bob.load()
    const [waiting] = toolCalls(bob.getSnapshot())
    expect(waiting).toMatchObject({ state: 'approval-requested', approval: { waitingFor: 'you' } })
    await bob.approve(waiting!.toolCallId)
    expect(bob.getSnapshot().error).toBeUndefined()
    expect(toolCalls(bob.getSnapshot())[0]!.state).toBe('output-available')
    await expect.poll(() => toolCalls(alice.getSnapshot())[0]?.state, { timeout: 4000 }).toBe('output-available')
  })
})
