import { useState } from 'react'
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import type { ChatClientOptions, FormField } from '@toolgate/ai/client'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { renderToolCall, type ToolRenderers, useApprovalForm, useApprovalQueue, useChat, type UseChatResult, useUserRequest } from '@toolgate/ai-react'
import { type PendingApproval, userRequests } from '@toolgate/ai/client'

afterEach(cleanup)

// A complete approval dialog built from the hooks alone, against the real chat handler.

const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({
    to: v.object({ name: v.pipe(v.string(), v.title('Recipient'), v.minLength(2)), iban: v.string() }),
    amount: v.pipe(v.number(), v.maxValue(1000)),
  }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: (input) => ({ reason: `Sends ${input.amount} EUR to ${input.to.name}` }),
  metadata: { icon: '💸', destructive: true },
})

const pickColor = toolDefinition({
  name: 'pick_color',
  description: 'Asks the user to pick a color',
  inputSchema: v.object({ question: v.string() }),
  outputSchema: v.object({ color: v.string() }),
})

const wire = toolDefinition({
  name: 'wire_funds',
  description: 'Wires a large sum',
  inputSchema: v.object({ amount: v.number() }),
  outputSchema: v.object({ ok: v.boolean() }),
  needsApproval: () => ({ reason: 'Large wire', reviewers: { roles: ['finance'], required: 2 } }),
})

const received: unknown[] = []
const model = scriptedModel(
  [
    { when: /pay/i, call: () => ({ tool: 'transfer_money', input: { to: { name: 'Bob', iban: 'DE01' }, amount: 50 } }), then: ([r]) => `${r.status}: ${r.content}` },
    {
      when: /split/i,
      call: () => [
        { tool: 'transfer_money', input: { to: { name: 'Ann', iban: 'DE02' }, amount: 10 } },
        { tool: 'transfer_money', input: { to: { name: 'Cid', iban: 'DE03' }, amount: 20 } },
      ],
      then: (results) => results.map((r) => r.status).join(', '),
    },
    {
      when: /wire/i,
      call: () => [
        { tool: 'transfer_money', input: { to: { name: 'Dee', iban: 'DE04' }, amount: 30 } },
        { tool: 'wire_funds', input: { amount: 9000 } },
      ],
      then: (results) => results.map((r) => r.status).join(', '),
    },
    { when: /color/i, call: () => ({ tool: 'pick_color', input: { question: 'Which color?' } }), then: ([r]) => `You picked ${r.tool === 'pick_color' && r.ok ? r.output.color : '?'}.` },
  ],
  { tools: [transfer, pickColor, wire] },
)

/** The server's view of the thread, read past the browser. */
let readThread: (threadId: string) => Promise<{ status: string; interrupts: { toolName: string }[] }>

function serverFetch(): NonNullable<ChatClientOptions['fetch']> {
  const handler = createChatHandler({
    model,
    tools: [transfer.server(async (input) => (received.push(input), { receipt: `r-${input.to.name}-${input.amount}` })), pickColor, wire.server(async () => ({ ok: true }))],
  })
  readThread = async (threadId) => (await handler(new Request(`http://test/api/chat?threadId=${threadId}`))).json()
  return (input, init) => handler(new Request(new URL(String(input), 'http://test'), init))
}

const askUser = userRequests<{ question: string }, { color: string }>()
const tools = [transfer, pickColor.client(askUser.execute), wire] as const
type Tools = typeof tools

function Field({ form, field }: { form: ReturnType<typeof useApprovalForm>; field: FormField }) {
  if (field.kind === 'object') return <fieldset><legend>{field.label}</legend>{field.fields!.map((child) => <Field key={child.name} form={form} field={child} />)}</fieldset>
  const error = form.error(field)
  return (
    <div>
      <label {...form.labelProps(field)}>{field.label}{form.isEdited(field) ? ' (edited)' : ''}</label>
      <input {...form.inputProps(field)} />
      {error && <p {...form.errorProps(field)}>{error}</p>}
    </div>
  )
}

function Dialog({ chat, approval, position }: { chat: UseChatResult<Tools>; approval: PendingApproval<Tools>; position: string }) {
  const form = useApprovalForm(chat, approval)
  return (
    <div {...form.dialogProps}>
      <h2 {...form.titleProps}>{form.metadata.icon} Allow {form.toolName}? {position}</h2>
      <p {...form.reasonProps}>{form.reason}</p>
      <form {...form.formProps}>
        {form.fields.map((field) => <Field key={field.name} form={form} field={field} />)}
        <label htmlFor={form.denyReasonProps.id}>Reason to deny</label>
        <input {...form.denyReasonProps} />
        <button type="button" onClick={() => void form.deny()}>Deny</button>
        {form.grantable && <button type="button" onClick={() => void form.approve({ grant: {} })}>Allow for this conversation</button>}
        <button type="submit">{form.edited ? 'Approve with edits' : 'Approve'}</button>
      </form>
    </div>
  )
}

const renderers: ToolRenderers<Tools> = {
  transfer_money: ({ part }) => (
    <p data-testid="card" data-decision={part.decision ? `${part.decision.decision} by ${part.decision.by.id}${part.decision.grantId ? ' under a grant' : ''}` : undefined}>
      {part.state === 'output-available' ? part.output.receipt : part.state}
    </p>
  ),
  pick_color: ({ part }) => {
    const request = useUserRequest(askUser, part.toolCallId)
    if (!request) return <p data-testid="picked">{part.state}</p>
    return (
      <div role="group" aria-label={request.input.question}>
        <button onClick={() => request.respond({ color: 'teal' })}>Teal</button>
      </div>
    )
  },
}

function App() {
  const [fetch] = useState(serverFetch)
  const chat = useChat({ endpoint: '/api/chat', tools, fetch, scheduleNotify: (flush) => flush() })
  const queue = useApprovalQueue(chat)
  const [draft, setDraft] = useState('')
  return (
    <main>
      <p data-testid="status">{chat.status}</p>
      {chat.messages.map((message) =>
        message.parts.map((part, i) => (part.type === 'text' ? <p key={`${message.id}-${i}`} data-testid={`${message.role}-text`}>{part.text}</p> : renderToolCall(part, renderers))),
      )}
      {queue.current && <Dialog key={queue.current.toolCallId} chat={chat} approval={queue.current} position={`${queue.position.index} of ${queue.position.total}`} />}
      {queue.pending.length > 1 && <button onClick={() => void queue.approveAll()}>Approve all</button>}
      <p data-testid="thread">{chat.threadId}</p>
      <ul aria-label="Queue">
        {queue.pending.map((approval) => (
          <li key={approval.toolCallId}>
            <span>{`${approval.toolName} waits for ${queue.waitsFor(approval).label}${approval.approval?.grantable ? ' (grantable)' : ''}`}</span>
            {queue.current?.toolCallId === approval.toolCallId && <button onClick={() => queue.dismiss(approval.toolCallId)}>Review later</button>}
            {queue.dismissed.includes(approval) && <button onClick={() => queue.review(approval.toolCallId)}>Review {approval.toolName}</button>}
          </li>
        ))}
      </ul>
      <form onSubmit={(event) => (event.preventDefault(), void chat.send(draft), setDraft(''))}>
        <input aria-label="Message" value={draft} onChange={(event) => setDraft(event.target.value)} />
      </form>
    </main>
  )
}

async function say(text: string) {
  fireEvent.change(screen.getByLabelText('Message'), { target: { value: text } })
  fireEvent.submit(screen.getByLabelText('Message').closest('form')!)
}

const answer = () => screen.getAllByTestId('assistant-text').at(-1)!.textContent

describe('useApprovalForm', () => {
  it('shows fields from the schema with labels, the policy’s reason and metadata, and approves a nested edit', async () => {
    received.length = 0
    render(<App />)
    await say('pay Bob')
    const dialog = await screen.findByRole('dialog', { name: /Allow transfer_money\?/ })
    expect(dialog).toHaveProperty('textContent', expect.stringContaining('💸'))
    expect(screen.getByRole('dialog', { description: 'Sends 50 EUR to Bob' })).toBe(dialog)
    const recipient = screen.getByLabelText('Recipient')
    expect(recipient).toHaveProperty('value', 'Bob')
    fireEvent.change(recipient, { target: { value: 'Carol' } })
    expect(screen.getByLabelText('Recipient (edited)')).toBe(recipient)
    fireEvent.click(screen.getByRole('button', { name: 'Approve with edits' }))
    await waitFor(() => expect(answer()).toMatch(/^success: The user edited the arguments/))
    expect(received).toEqual([{ to: { name: 'Carol', iban: 'DE01' }, amount: 50 }])
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  it('shows an invalid edit on its field, wired with aria, sends nothing, and approves once fixed', async () => {
    received.length = 0
    render(<App />)
    await say('pay Bob')
    await screen.findByRole('dialog')
    const amount = screen.getByLabelText('amount')
    fireEvent.change(amount, { target: { value: '5000' } })
    fireEvent.submit(amount.closest('form')!)
    const error = await screen.findByRole('alert')
    expect(error.textContent).toMatch(/1000/)
    expect(amount.getAttribute('aria-invalid')).toBe('true')
    expect(amount.getAttribute('aria-describedby')).toContain(error.id)
    expect(received).toEqual([])
    fireEvent.change(amount, { target: { value: '900' } })
    expect(screen.queryByRole('alert')).toBeNull()
    fireEvent.submit(amount.closest('form')!)
    await waitFor(() => expect(received).toEqual([{ to: { name: 'Bob', iban: 'DE01' }, amount: 900 }]))
  })

  it('denies with the reason the user typed', async () => {
    received.length = 0
    render(<App />)
    await say('pay Bob')
    await screen.findByRole('dialog')
    fireEvent.change(screen.getByLabelText('Reason to deny'), { target: { value: 'wrong account' } })
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }))
    await waitFor(() => expect(answer()).toMatch(/^denied: .*wrong account/))
    expect(received).toEqual([])
  })
})

describe('grant choices', () => {
  it('"allow for this conversation" approves with a grant: the next call runs without asking, and its part says it ran under the grant', async () => {
    received.length = 0
    render(<App />)
    await say('pay Bob')
    await screen.findByRole('dialog')
    fireEvent.click(screen.getByRole('button', { name: 'Allow for this conversation' }))
    await waitFor(() => expect(answer()).toMatch(/^success:/))
    await say('pay Bob')
    await waitFor(() => expect(screen.getAllByTestId('card')).toHaveLength(2))
    await waitFor(() => expect(screen.getAllByTestId('card').at(-1)!.textContent).toBe('r-Bob-50'))
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(screen.getAllByTestId('card').map((card) => card.dataset.decision)).toEqual(['approved by anonymous under a grant', 'granted by anonymous under a grant'])
    expect(received).toHaveLength(2)
  })

})

describe('useApprovalQueue', () => {
  it('shows whom each item waits for; "review later" sends nothing and leaves the interrupt open on the server', async () => {
    received.length = 0
    render(<App />)
    await say('wire it')
    await screen.findByRole('dialog', { name: /Allow transfer_money\?/ })
    const items = within(screen.getByRole('list', { name: 'Queue' })).getAllByRole('listitem')
    // A grant could not cover a call under a two-person rule, so none is offered for it.
    expect(items.map((item) => item.firstChild!.textContent)).toEqual(['transfer_money waits for you (grantable)', 'wire_funds waits for 2 reviewers (finance)'])
    expect(screen.getAllByRole('dialog')).toHaveLength(1) // the wire is not this user's to answer: no dialog for it
    fireEvent.click(screen.getByRole('button', { name: 'Review later' }))
    expect(screen.queryByRole('dialog')).toBeNull()
    const threadId = screen.getByTestId('thread').textContent!
    expect(await readThread(threadId)).toMatchObject({ status: 'interrupted', interrupts: [{ toolName: 'transfer_money' }, { toolName: 'wire_funds' }] })
    expect(received).toEqual([])
    fireEvent.click(screen.getByRole('button', { name: 'Review transfer_money' }))
    await screen.findByRole('dialog', { name: /Allow transfer_money\?/ })
  })

  it('shows a batch one at a time and approves all of it at once', async () => {
    received.length = 0
    render(<App />)
    await say('split the bill')
    expect((await screen.findByRole('dialog')).textContent).toContain('1 of 2')
    fireEvent.click(screen.getByRole('button', { name: 'Approve all' }))
    await waitFor(() => expect(answer()).toBe('success, success'))
    expect(received).toHaveLength(2)
    expect(screen.getAllByTestId('card').map((card) => card.textContent)).toEqual(['r-Ann-10', 'r-Cid-20'])
  })
})

describe('render and wait', () => {
  it('lets a client tool wait for the user through its renderer', async () => {
    render(<App />)
    await say('pick a color')
    const group = await screen.findByRole('group', { name: 'Which color?' })
    fireEvent.click(group.querySelector('button')!)
    await waitFor(() => expect(answer()).toBe('You picked teal.'))
    expect(screen.getByTestId('picked').textContent).toBe('output-available')
  })
})
