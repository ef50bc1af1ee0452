import * as v from 'valibot'
import { toolDefinition } from '../../tools/toolDefinition.ts'
import type { DecisionRecord, DecisionSummary, Principal } from '../../protocol/decisions.ts'
import { createChatHandler } from '../createChatHandler.ts'
import type { ApprovalRequest } from '../options.ts'
import type { ChatHandlerOptions, ChatLimits } from '../options.ts'
import type { ThreadStore } from '../thread/threadStore.ts'
import { scriptedModel } from './scriptedModel.ts'

// The reviewer rules as a store must uphold them: every refusal is decided under the head's
// compare-and-set and changes nothing, whichever store holds the thread. Used by the conformance
// suite; a chat app with reviewers on the given store, driven through its Fetch API handler.

const PEOPLE: Record<string, Principal> = {
  alice: { id: 'alice', name: 'Alice' },
  bob: { id: 'bob', name: 'Bob', roles: ['finance'] },
  carol: { id: 'carol', name: 'Carol', roles: ['finance'] },
  dave: { id: 'dave', name: 'Dave', roles: ['sales'] },
}

export const LINK_SECRET = 'conformance-secret-0123456789-abcdefghij'

/** A chat app whose transfers need a reviewer from finance (two of them for `wire_funds`; for `send_funds`, as many as the sum asks). */
export function reviewedApp(
  store: ThreadStore,
  options: { readonly linkTtlMs?: number; readonly limits?: ChatLimits; readonly onExpired?: ChatHandlerOptions<unknown>['onExpired'] } = {},
) {
  const ran: { tool: string; input: unknown }[] = []
  const requests: ApprovalRequest[] = []
  const recorded: DecisionRecord[] = []
  const transfer = toolDefinition({
    name: 'transfer_money',
    description: 'Sends money',
    inputSchema: v.object({ to: v.string(), amount: v.number() }),
    needsApproval: (input) => ({ reason: `Sends ${input.amount} EUR to ${input.to}`, reviewers: { roles: ['finance'] } }),
  }).server(async (input) => (ran.push({ tool: 'transfer_money', input }), { ok: true }))
  const wire = toolDefinition({
    name: 'wire_funds',
    description: 'Wires a large sum',
    inputSchema: v.object({ to: v.string(), amount: v.number() }),
    needsApproval: () => ({ reason: 'Large wire', reviewers: { roles: ['finance'], required: 2 } }),
  }).server(async (input) => (ran.push({ tool: 'wire_funds', input }), { ok: true }))
  // The larger the sum, the more people must agree: an edit is asked of this policy again.
  const acted: { input: unknown; context: unknown; decision: DecisionSummary | undefined }[] = []
  const funds = toolDefinition({
    name: 'send_funds',
    description: 'Sends funds',
    inputSchema: v.object({ to: v.string(), amount: v.number() }),
    needsApproval: ({ to, amount }) => {
      const reason = `Sends ${amount} EUR to ${to}`
      if (amount < 10) return false
      if (amount <= 1000) return { reason }
      return amount <= 10_000 ? { reason, reviewers: { roles: ['finance'] } } : { reason, reviewers: { roles: ['finance'], required: 2 } }
    },
  }).server(async (input, ctx) => (ran.push({ tool: 'send_funds', input }), acted.push({ input, context: ctx.context, decision: ctx.decision }), { ok: true }))
  const email = toolDefinition({
    name: 'send_email',
    description: 'Sends an email',
    inputSchema: v.object({ to: v.string() }),
    needsApproval: true,
  }).server(async (input) => (ran.push({ tool: 'send_email', input }), { ok: true }))
  const model = scriptedModel([
    { when: /send (\d+) to (\w+)/, call: (m) => ({ tool: 'send_funds', input: { to: m[2]!, amount: Number(m[1]) } }), then: ([r]) => `send: ${r.status}` },
    { when: /email (\w+)/, call: (m) => ({ tool: 'send_email', input: { to: m[1] } }), then: ([r]) => `email: ${r.status}` },
    { when: /wire (\d+)/, call: (m) => ({ tool: 'wire_funds', input: { to: 'Zed', amount: Number(m[1]) } }), then: ([r]) => `wire: ${r.status}` },
    { when: /pay (\d+)/, call: (m) => ({ tool: 'transfer_money', input: { to: 'Bob', amount: Number(m[1]) } }), then: ([r]) => `pay: ${r.status}` },
  ])
  const handler = createChatHandler({
    model,
    tools: [transfer, wire, email, funds],
    store,
    identify: (request) => PEOPLE[request.headers.get('x-session') ?? ''],
    // Whose request it is: a resumed tool must see its requester's, never the approver's.
    context: (request: Request) => ({ user: request.headers.get('x-session') || 'nobody' }),
    requesterContext: (requester: Principal) => ({ user: requester.id }),
    reviewLinks: { secret: LINK_SECRET, url: (token) => `https://app.test/review?token=${token}`, ...(options.linkTtlMs ? { ttlMs: options.linkTtlMs } : {}) },
    onApprovalRequested: (request) => void requests.push(request),
    onDecision: (record) => void recorded.push(record),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.onExpired ? { onExpired: options.onExpired } : {}),
  })
  const post = (body: unknown, as?: string) =>
    handler(new Request('http://test/chat', { method: 'POST', headers: { 'content-type': 'application/json', ...(as ? { 'x-session': as } : {}) }, body: JSON.stringify(body) }))
  const get = (query: string, as?: string) => handler(new Request(`http://test/chat?${query}`, { headers: as ? { 'x-session': as } : {} }))

  /** Sends a message as `as` (in `threadId`, or a new thread); the interrupt it paused on, if any. */
  const ask = async (message: string, as = 'alice', threadId?: string) => {
    const text = await (await post(threadId ? { threadId, message } : { message }, as)).text()
    const events = text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)))
    const interrupt = events.at(-1).outcome?.interrupts?.[0]
    return { threadId: events[0].threadId as string, interrupt: interrupt as { id: string; toolCallId: string; input: unknown } }
  }
  /** The links `onApprovalRequested` got for an interrupt (they are made once it is stored). */
  const linksFor = async (interruptId: string) => {
    for (let i = 0; i < 100 && !requests.some((r) => r.interruptId === interruptId); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    return requests.find((r) => r.interruptId === interruptId)!.links
  }
  /** What a refusal must leave as it was: the head's version and the records. */
  const state = async (threadId: string) => ({ version: (await store.head(threadId))?.version, decisions: await store.decisions(threadId) })
  /** Waits for the thread's run (one a link resumed runs detached) to let go. */
  const idle = async (threadId: string) => {
    for (let i = 0; i < 500; i++) {
      const snapshot = (await (await get(`threadId=${threadId}`, 'alice')).json()) as { status: string }
      if (snapshot.status !== 'running') return snapshot
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error('the run did not finish')
  }
  const errorOf = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { error: { code: string } }).error.code })
  /** What a server API call threw: its status, code and path (`accepted` when it did not throw). */
  const refusalOf = async (promise: Promise<unknown>) => {
    try {
      await promise
      return 'accepted'
    } catch (error) {
      const { status, code, path } = error as { status?: number; code?: string; path?: string }
      return { status, code, ...(path === undefined ? {} : { path }) }
    }
  }
  return { handler, ran, acted, requests, recorded, post, get, ask, linksFor, state, idle, errorOf, refusalOf }
}
