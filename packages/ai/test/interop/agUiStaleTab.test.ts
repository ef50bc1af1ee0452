import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { transferDef } from '../server/fixtures.ts'
import { reload, ToolgateAgent } from './helpers/agUiPages.ts'
import { closeAll, startServer, type TestServer } from '../server/helpers/server.ts'

afterEach(closeAll)

// Two tabs (two stock AG-UI agents) on one thread, an approval waiting in both. The first answer
// runs the tool; the second tab's answer, given later, is not applied (the tool runs once), and
// that tab is told the thread as it stands, as a reload would show it, not a bare 409.

let transfers: { to: string; amount: number }[] = []

function setUp(): Promise<TestServer> {
  transfers = []
  const transfer = transferDef.server(async (input) => {
    transfers.push(input)
    return { receipt: `r-${input.amount}` }
  })
  const model = scriptedModel([
    { when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }), then: ([r]) => (r.ok ? `Paid: ${JSON.stringify(r.output)}` : `Not paid: ${r.content}`) },
  ])
  return startServer({ model, tools: [transfer] })
}

describe('a stale tab answers an approval another tab answered first', () => {
  for (const [first, second] of [
    [true, false],
    [false, true],
  ] as const) {
    it(`(${first ? 'approved' : 'denied'}, then ${second ? 'approved' : 'denied'}): the first answer stands, the stale tab gets the thread as decided`, async () => {
      const server = await setUp()
      const threadId = `t-${Math.random().toString(36).slice(2)}`
      const one = new ToolgateAgent({ url: server.url, threadId })
      one.addMessage({ id: 'u-1', role: 'user', content: 'pay Bob' })
      await one.runAgent({})
      const two = (await reload(server, threadId)).agent
      const [interrupt] = one.pendingInterrupts
      expect(two.pendingInterrupts.map((each) => each.id)).toEqual([interrupt!.id])

      await one.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: first } }] })
      const decided = first ? 'Paid: {"receipt":"r-500"}' : expect.stringMatching(/^Not paid: /)
      expect(one.messages.at(-1)?.content).toEqual(decided)

      await two.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: second } }] })
      expect(two.pendingInterrupts).toEqual([])
      expect(two.messages.at(-1)?.content).toEqual(decided)
      expect(two.messages.map((message) => message.id)).toEqual((await server.get(threadId)).messages.map((message) => message.id))
      expect(transfers).toEqual(first ? [{ to: 'Bob', amount: 500 }] : [])
    })
  }
})
