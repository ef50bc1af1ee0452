import * as v from 'valibot'
import { toolDefinition } from '../../tools/toolDefinition.ts'
import { createChatHandler } from '../createChatHandler.ts'
import type { ThreadCommit, ThreadStore } from '../thread/threadStore.ts'
import { scriptedModel } from './scriptedModel.ts'
import type { Runner } from './outOfBand.ts'

// A read-only tool's call starts while the write that marks its step's calls running is on its
// way; another tool's call of the same step starts only once that write is stored.

/** `inner`, whose first commit that marks calls running is sent only once `open` is called; `held` resolves when it waits. */
function heldMark(inner: ThreadStore) {
  let open = () => {}
  const gate = new Promise<void>((resolve) => (open = resolve))
  let reached = () => {}
  const held = new Promise<void>((resolve) => (reached = resolve))
  let waited = false
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'commit') {
        return async (commit: ThreadCommit) => {
          if (!waited && (commit.head.step?.running.length ?? 0) > 0) {
            waited = true
            reached()
            await gate
          }
          return target.commit(commit)
        }
      }
      const value = Reflect.get(target, key, receiver) as unknown
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
  return { store, held, open: () => open() }
}

export function readOnlyCallChecks(factory: (options: { readonly threadTtlMs?: number }) => ThreadStore | Promise<ThreadStore>, { it, expect }: Runner): void {
  it('read-only tools: a read-only call starts before its running mark is stored, another call of its step only after', async () => {
    const { store, held, open } = heldMark(await factory({}))
    const order: string[] = []
    const weather = toolDefinition({ name: 'get_weather', description: 'Reads the weather', inputSchema: v.object({ city: v.string() }), readOnly: true }).server(async () => {
      order.push('read started')
      return { celsius: 21 }
    })
    const pay = toolDefinition({ name: 'pay', description: 'Pays', inputSchema: v.object({ to: v.string() }) }).server(async () => {
      order.push('pay started')
      return { ok: true }
    })
    const model = scriptedModel([{ when: 'go', call: () => [{ tool: 'get_weather', input: { city: 'Lima' } }, { tool: 'pay', input: { to: 'Ann' } }], then: () => 'done' }])
    const handler = createChatHandler({ model, tools: [weather, pay], store })
    const response = handler(new Request('http://test/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'go' }) }))
    await held
    // The mark is on its way: the read-only call has started (told before its own promise settles), the other has not.
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve))
    order.push('mark stored')
    open()
    const text = await (await response).text()
    expect(text.includes('RUN_FINISHED')).toBe(true)
    expect(order).toEqual(['read started', 'mark stored', 'pay started'])
  }, 60_000)
}
