import { describe, expect, it } from 'vitest'
import { createChatClient } from '@toolgate/ai/client'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import type { Principal } from '@toolgate/ai/protocol'
import { inProcess, share, toolCalls, transfer, transferServer } from './helpers.ts'

// The decision a call shows (who decided, when, by which channel) is the same live as after a
// reload: for a server tool the page denied, and for a browser tool the page approved and ran.

const model = scriptedModel(
  [
    { when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }), then: ([r]) => r.status },
    { when: /share/i, call: () => ({ tool: 'share_file', input: { file: 'a.txt', with: 'Bob' } }), then: ([r]) => r.status },
  ],
  { tools: [transfer, share] },
)
const alice: Principal = { id: 'alice', name: 'Alice' }
const shareHere = share.client(async ({ file }) => ({ link: `https://files.test/${file}` }))

function pages() {
  const handler = createChatHandler({ model, tools: [transferServer, share], identify: () => alice })
  const open = (threadId?: string) =>
    createChatClient({ endpoint: '/api/chat', tools: [transfer, shareHere], threadId, fetch: inProcess(handler), scheduleNotify: (flush) => flush() })
  return { open }
}

describe('the decision a call shows', () => {
  it('is the same live as after a reload, for a denied server tool', async () => {
    const { open } = pages()
    const live = open()
    await live.send('send 500 to Bob')
    await live.deny(live.getSnapshot().pendingApprovals[0]!.toolCallId, 'too much')
    const [denied] = toolCalls(live.getSnapshot())
    expect(denied).toMatchObject({ state: 'denied', approval: { denyReason: 'too much' }, decision: { decision: 'denied', by: { id: 'alice', name: 'Alice' } } })

    const reloaded = open(live.getSnapshot().threadId)
    await reloaded.load()
    const [again] = toolCalls(reloaded.getSnapshot())
    expect(again!.decision).toEqual(denied!.decision)
    expect(again!.approval?.denyReason).toBe('too much')
  })

  it('is the same live as after a reload, for an approved browser tool', async () => {
    const { open } = pages()
    const live = open()
    await live.send('share the file')
    await live.approve(live.getSnapshot().pendingApprovals[0]!.toolCallId)
    await expect.poll(() => live.getSnapshot().status).toBe('idle')
    const [ran] = toolCalls(live.getSnapshot())

    expect(ran).toMatchObject({ state: 'output-available', output: { link: 'https://files.test/a.txt' }, decision: { decision: 'approved', by: { id: 'alice' } } })

    const reloaded = open(live.getSnapshot().threadId)
    await reloaded.load()
    expect(toolCalls(reloaded.getSnapshot())[0]!.decision).toEqual(ran!.decision)
  })
})
