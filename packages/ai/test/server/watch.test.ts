import * as v from 'valibot'
import { afterEach, describe, expect, it } from 'vitest'
import { toolDefinition } from '@toolgate/ai'
import { type ChatLimits, memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import type { Principal } from '@toolgate/ai/protocol'
import { closeAll, startServer } from './helpers/server.ts'

// `GET ?threadId&watch=<version>`: a long poll on a thread, so a chat waiting for reviewers learns
// of their decision as soon as it is stored. Cross-instance wakeups on Redis and PostgreSQL are in
// stores.test.ts; here, what any store gives: authorization, the bound on waiting, the bound on
// waiters, and a store with no wakeup of its own.

afterEach(closeAll)

const PEOPLE: Record<string, Principal> = { alice: { id: 'alice' }, bob: { id: 'bob', roles: ['finance'] }, carol: { id: 'carol', roles: ['finance'] } }
const wire = toolDefinition({
  name: 'wire_funds',
  description: 'Wires a large sum',
  inputSchema: v.object({ amount: v.number() }),
  needsApproval: () => ({ reason: 'Large wire', reviewers: { roles: ['finance'], required: 2 } }),
}).server(async () => ({ ok: true }))

/** Alice owns the threads she starts; finance may act on any; no one else may do anything. */
async function app(options: { store?: ThreadStore; limits?: ChatLimits } = {}) {
  const owners = new Map<string, string>()
  const server = await startServer({
    model: scriptedModel([{ when: /wire/, call: () => ({ tool: 'wire_funds', input: { amount: 9000 } }), then: ([r]) => `wire: ${r.status}` }]),
    tools: [wire],
    store: options.store ?? memoryStore(),
    identify: (request) => PEOPLE[request.headers.get('x-user') ?? ''],
    authorize: (request, threadId) => {
      const user = request.headers.get('x-user') ?? ''
      if (!owners.has(threadId) && user === 'alice') owners.set(threadId, user)
      return owners.get(threadId) === user || (owners.has(threadId) && PEOPLE[user]?.roles?.includes('finance') === true)
    },
    ...(options.limits ? { limits: options.limits } : {}),
  })
  const watch = (threadId: string, version: number | string, user = 'alice', signal?: AbortSignal) =>
    fetch(`${server.url}?threadId=${encodeURIComponent(threadId)}&watch=${version}`, { headers: { 'x-user': user }, ...(signal ? { signal } : {}) })
  const turn = await server.send('wire it', undefined, { 'x-user': 'alice' })
  const current = (await (await watch(turn.threadId, 0)).json()) as { threadId: string; version: number }
  return { server, watch, threadId: turn.threadId, interrupt: turn.interrupts[0]!, version: current.version }
}

describe('GET ?threadId&watch=<version>', () => {
  it('answers at once with the version when the thread is past it, and once a reviewer’s decision is stored (202: one of two approvals)', async () => {
    const { server, watch, threadId, interrupt, version } = await app({ limits: { watchMs: 60_000 } })
    expect(version).toBeGreaterThan(0)
    const watching = watch(threadId, version)
    const accepted = await server.resume(threadId, [{ interruptId: interrupt.id, approved: true }], { 'x-user': 'bob' })
    expect(accepted.status).toBe(202)
    const answer = await watching
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ threadId, version: version + 1 })
  })

  it('refuses a thread of someone else and an unknown thread alike, before the store is read', async () => {
    let reads = 0
    const store = memoryStore()
    const counting: ThreadStore = { ...store, head: (id) => (reads++, store.head(id)) }
    const { watch, threadId, version } = await app({ store: counting })
    reads = 0
    const foreign = await watch(threadId, version, 'dave')
    const unknown = await watch('nobody-has-this', 0, 'dave')
    expect([foreign.status, unknown.status]).toEqual([403, 403])
    expect(await foreign.json()).toEqual(await unknown.json())
    expect(reads).toBe(0)
    expect((await (await watch(threadId, 'v1')).json()) as unknown).toMatchObject({ error: { code: 'INVALID_REQUEST', path: 'watch' } })
  })

  it('ends by itself when nothing changes: 204, and the client asks again', async () => {
    const { watch, threadId, version } = await app({ limits: { watchMs: 50 } })
    const answer = await watch(threadId, version)
    expect(answer.status).toBe(204)
    expect(answer.headers.get('cache-control')).toBe('no-store')
  })

  it('holds at most `maxWatchers` at once: one more is refused with 429 and Retry-After, and a place freed is taken again', async () => {
    const { watch, threadId, version } = await app({ limits: { maxWatchers: 1, watchMs: 60_000 } })
    const first = new AbortController()
    const holding = watch(threadId, version, 'alice', first.signal).catch(() => undefined)
    // The first watch is waiting once a second one is refused.
    let refused: Response
    do refused = await watch(threadId, version, 'alice', AbortSignal.timeout(100)).catch(() => new Response(null, { status: 0 }))
    while (refused.status !== 429)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await refused.json()).toMatchObject({ error: { code: 'TOO_MANY_WATCHERS' } })
    first.abort()
    await holding
    // The server counts the aborted watch out once it sees the client gone.
    let next: Response
    do next = await watch(threadId, 0)
    while (next.status === 429)
    expect(next.status).toBe(200)
  })

  it('bounds each principal’s watches too: alice holding hers leaves a place for bob (issue 36)', async () => {
    const store = memoryStore()
    let watching = 0
    const counting: ThreadStore = { ...store, watch: (...args) => (watching++, store.watch!(...args)) }
    const { watch, threadId, version } = await app({ store: counting, limits: { maxWatchers: 2, maxWatchersPerPrincipal: 1, watchMs: 60_000 } })
    const held = [new AbortController(), new AbortController()]
    const first = watch(threadId, version, 'alice', held[0]!.signal).catch(() => undefined)
    while (watching < 1) await new Promise((resolve) => setTimeout(resolve, 5))
    // Alice's second watch is refused (or, unbounded per person, waits and fills the process).
    const second = watch(threadId, version, 'alice', held[1]!.signal).catch(() => undefined)
    const taken = new Promise<void>(async (resolve) => {
      while (watching < 2) await new Promise((resolve) => setTimeout(resolve, 5))
      resolve()
    })
    const refused = await Promise.race([second, taken])
    const refusal = refused instanceof Response ? [refused.status, ((await refused.json()) as { error: { code: string } }).error.code] : 'alice’s second watch waits'
    const bob = await watch(threadId, 0, 'bob')
    for (const controller of held) controller.abort()
    await first
    expect(refusal).toEqual([429, 'TOO_MANY_WATCHERS'])
    expect(bob.status).toBe(200)
  })

  it('works on a store with no wakeup of its own, by looking at the head', async () => {
    const store = memoryStore()
    const { watch: _omitted, ...plain } = store
    const { server, watch, threadId, interrupt, version } = await app({ store: plain, limits: { watchMs: 60_000 } })
    const watching = watch(threadId, version)
    await server.resume(threadId, [{ interruptId: interrupt.id, approved: true }], { 'x-user': 'bob' })
    expect(await (await watching).json()).toEqual({ threadId, version: version + 1 })
  })
})
