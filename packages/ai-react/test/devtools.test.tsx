import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { ToolgateDevtools } from '@toolgate/ai-react/devtools'

afterEach(cleanup)

// The panel against the real chat handler, in-process: what it shows comes from `?devtools`.

const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  needsApproval: true,
})
const model = scriptedModel([{ when: /send/i, call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 5 } }), then: ([r]) => `transfer: ${r.status}` }], { tools: [transfer] })

function server(devtools: boolean) {
  const handler = createChatHandler({ model, tools: [transfer.server(() => ({ ok: true }))], devtools, limits: { interruptTtlMs: 60_000 } })
  const fetch = (input: string, init?: RequestInit) => handler(new Request(new URL(input, 'http://test'), init))
  return { handler, fetch }
}

async function pausedThread(fetch: (input: string, init?: RequestInit) => Promise<Response>): Promise<string> {
  const response = await fetch('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'send it' }) })
  const text = await response.text()
  return (JSON.parse(text.split('\n').find((line) => line.startsWith('data: '))!.slice(6)) as { threadId: string }).threadId
}

describe('ToolgateDevtools', () => {
  it('shows the run’s timeline and the pending approval with its expiry', async () => {
    const { fetch } = server(true)
    const threadId = await pausedThread(fetch)
    render(<ToolgateDevtools endpoint="/api/chat" threadId={threadId} fetch={fetch} refreshMs={60_000} />)

    const panel = screen.getByTestId('toolgate-devtools')
    await waitFor(() => expect(within(panel).getByTestId('devtools-status').textContent).toBe('interrupted'))
    const types = within(panel).getAllByTestId('devtools-event').map((row) => row.getAttribute('data-type'))
    expect(types[0]).toBe('RUN_STARTED')
    expect(types.at(-1)).toBe('RUN_FINISHED')
    expect(types).toContain('TOOL_CALL_START')
    expect(within(panel).getByTestId('devtools-timeline').textContent).toContain('paused on transfer_money')

    fireEvent.click(within(panel).getByRole('tab', { name: /Interrupts/ }))
    const interrupt = within(panel).getByTestId('devtools-interrupt')
    expect(interrupt.textContent).toContain('transfer_money')
    expect(interrupt.textContent).toMatch(/expires in (59|60) s/)
    expect(within(interrupt).getByTestId('devtools-decision').textContent).toBe('pending')
  })

  it('says what the handler answered when it does not serve devtools', async () => {
    const { fetch } = server(false)
    const threadId = await pausedThread(fetch)
    render(<ToolgateDevtools endpoint="/api/chat" threadId={threadId} fetch={fetch} />)
    await waitFor(() => expect(screen.getByRole('alert').textContent).toContain('DEVTOOLS_DISABLED'))
  })
})
