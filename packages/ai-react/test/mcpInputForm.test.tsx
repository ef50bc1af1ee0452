import { useState } from 'react'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import * as z from 'zod'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { createMcpHandler, inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server'
import type { ChatClientOptions, FormField, PendingApproval } from '@toolgate/ai/client'
import { mcpToolDefinitions } from '@toolgate/ai/interop/mcp'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { useApprovalForm, useApprovalQueue, useChat, type UseChatResult } from '@toolgate/ai-react'
import type { AnyTool } from '@toolgate/ai'

afterEach(cleanup)

// An MCP server's request for input (2026-07-28 `input_required`), imported into the chat, in the
// same approval dialog as any approval: its form is the server's requested schema, checked as the
// person fills it, and approving sends the values back to the server, which books once.

const booked: unknown[] = []

async function serverFetch(): Promise<NonNullable<ChatClientOptions['fetch']>> {
  const mcp = createMcpHandler(() => {
    const server = new McpServer({ name: 'bistro', version: '1.0.0' })
    const party = z.object({ seats: z.number().int().min(1).max(12).describe('How many people'), note: z.string().optional() })
    server.registerTool('book_table', { description: 'Books a table', inputSchema: z.object({ restaurant: z.string() }) }, async ({ restaurant }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'party')
      if (answer.kind === 'missing') return inputRequired({ inputRequests: { party: inputRequired.elicit({ message: `How many seats at ${restaurant}?`, requestedSchema: party }) } })
      if (answer.kind !== 'elicit' || answer.action !== 'accept') return { content: [{ type: 'text', text: `Not booked (${answer.kind === 'elicit' ? answer.action : 'no answer'})` }] }
      booked.push(answer.content)
      return { content: [{ type: 'text', text: `Booked ${answer.content?.seats} seats` }] }
    })
    return server
  })
  const client = new Client({ name: 'chat', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'), { fetch: (url, init) => mcp.fetch(new Request(url, init)) }))
  const tools = await mcpToolDefinitions(client)
  const model = scriptedModel([{ when: /book/i, call: () => ({ tool: 'book_table', input: { restaurant: 'Chez Nous' } }), then: ([r]) => `${r.status}: ${r.content}` }])
  const handler = createChatHandler({ model, tools })
  return (input, init) => handler(new Request(new URL(String(input), 'http://test'), init))
}

function Field({ form, field }: { form: ReturnType<typeof useApprovalForm>; field: FormField }) {
  const error = form.error(field)
  return (
    <div>
      <label {...form.labelProps(field)}>{field.label}</label>
      <input {...form.inputProps(field)} />
      {error && <p {...form.errorProps(field)}>{error}</p>}
    </div>
  )
}

function Dialog({ chat, approval }: { chat: UseChatResult<readonly AnyTool[]>; approval: PendingApproval }) {
  const form = useApprovalForm(chat, approval)
  return (
    <div {...form.dialogProps}>
      <p {...form.reasonProps}>{form.reason}</p>
      <form {...form.formProps}>
        {form.fields.map((field) => <Field key={field.name} form={form} field={field} />)}
        <button type="button" onClick={() => void form.deny()}>Deny</button>
        <button type="submit">Approve</button>
      </form>
    </div>
  )
}

function App({ fetch }: { fetch: NonNullable<ChatClientOptions['fetch']> }) {
  const chat = useChat({ endpoint: '/api/chat', fetch, scheduleNotify: (flush) => flush() })
  const queue = useApprovalQueue(chat)
  const [draft, setDraft] = useState('')
  return (
    <main>
      {chat.messages.map((message) => message.parts.map((part, i) => (part.type === 'text' ? <p key={`${message.id}-${i}`} data-testid={`${message.role}-text`}>{part.text}</p> : null)))}
      {queue.current && <Dialog key={queue.current.toolCallId} chat={chat} approval={queue.current} />}
      <form onSubmit={(event) => (event.preventDefault(), void chat.send(draft), setDraft(''))}>
        <input aria-label="Message" value={draft} onChange={(event) => setDraft(event.target.value)} />
      </form>
    </main>
  )
}

async function ask() {
  render(<App fetch={await serverFetch()} />)
  fireEvent.change(screen.getByLabelText('Message'), { target: { value: 'book a table' } })
  fireEvent.submit(screen.getByLabelText('Message').closest('form')!)
  return screen.findByRole('dialog', { description: 'How many seats at Chez Nous?' })
}

const answer = () => screen.getAllByTestId('assistant-text').at(-1)!.textContent

describe('an imported tool asking for input, in the approval dialog', () => {
  it('shows the requested schema as the form, refuses a value outside it on its field, and sends the values once approved', async () => {
    booked.length = 0
    await ask()
    const seats = screen.getByLabelText('seats')
    expect(screen.getByLabelText('note')).toBeDefined()
    fireEvent.change(seats, { target: { value: '40' } })
    fireEvent.submit(seats.closest('form')!)
    expect((await screen.findByRole('alert')).textContent).toMatch(/12/)
    expect(booked).toEqual([])
    fireEvent.change(seats, { target: { value: '4' } })
    fireEvent.submit(seats.closest('form')!)
    await waitFor(() => expect(answer()).toBe('success: "Booked 4 seats"'))
    expect(booked).toEqual([{ seats: 4 }])
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  it('denying sends decline, and the server answers', async () => {
    booked.length = 0
    await ask()
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }))
    await waitFor(() => expect(answer()).toBe('success: "Not booked (decline)"'))
    expect(booked).toEqual([])
  })
})
