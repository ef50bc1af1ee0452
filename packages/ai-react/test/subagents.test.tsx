import { useState } from 'react'
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, type AnyTool } from '@toolgate/ai'
import type { ChatClientOptions, PendingApproval, ToolCallPart } from '@toolgate/ai/client'
import { agentTool, createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { useApprovalForm, useApprovalQueue, useChat, type UseChatResult } from '@toolgate/ai-react'
import { ToolgateDevtools } from '@toolgate/ai-react/devtools'

afterEach(cleanup)

// A subagent's call that needs approval, in the same hooks as any other (issue 39), against the
// real chat handler: the queue offers it, the form titles it with its path and edits it within
// the inner tool's schema; the devtools show the run's events as a tree.

const sent: unknown[] = []
const sendEmail = toolDefinition({
  name: 'send_email',
  description: 'Sends an email',
  inputSchema: v.object({ to: v.pipe(v.string(), v.email()), subject: v.string() }),
  needsApproval: true,
})
const research = agentTool({
  name: 'research-assistant',
  description: 'Researches a topic and emails the findings',
  model: scriptedModel([
    {
      when: /about (\w+)/i,
      say: 'Emailing the team.',
      call: (m) => ({ tool: 'send_email', input: { to: 'team@example.com', subject: `About ${m[1]}` } }),
      then: ([r]) => (r.status === 'denied' ? `Not sent: ${r.reason}` : `Sent to ${(r.input as { to: string }).to}.`),
    },
  ]),
  tools: [sendEmail.server((input) => (sent.push(input), { ok: true }))],
})
const model = scriptedModel([{ when: /(.+)/, call: (m) => ({ tool: 'research-assistant', input: { task: m[1] } }), then: ([r]) => `Assistant: ${r.content}` }])

function handler(devtools = false) {
  return createChatHandler({ model, tools: [research], devtools })
}

function serverFetch(): NonNullable<ChatClientOptions['fetch']> {
  const serve = handler()
  return (input, init) => serve(new Request(new URL(String(input), 'http://test'), init))
}

const tools = [sendEmail] as const
type Tools = typeof tools

function Dialog({ chat, approval }: { chat: UseChatResult<Tools>; approval: PendingApproval<Tools> }) {
  const form = useApprovalForm(chat, approval)
  return (
    <div {...form.dialogProps}>
      <h2 {...form.titleProps}>Allow {form.path.join(' → ')}?</h2>
      <p {...form.reasonProps}>{form.reason}</p>
      <form {...form.formProps}>
        {form.fields.map((field) => (
          <div key={field.name}>
            <label {...form.labelProps(field)}>{field.label}</label>
            <input {...form.inputProps(field)} />
            {form.error(field) && <p {...form.errorProps(field)}>{form.error(field)}</p>}
          </div>
        ))}
        <label htmlFor={form.denyReasonProps.id}>Reason to deny</label>
        <input {...form.denyReasonProps} />
        <button type="button" onClick={() => void form.deny()}>Deny</button>
        <button type="submit">Approve</button>
      </form>
    </div>
  )
}

function Call({ part }: { part: ToolCallPart }) {
  return (
    <div data-testid={`call-${part.toolName}`} data-state={part.state}>
      {part.subagent && (
        <section aria-label={`${part.subagent.name} (${part.subagent.status})`}>
          {part.subagent.parts.map((inner, i) => (inner.type === 'text' ? <p key={i}>{inner.text}</p> : <Call key={inner.toolCallId} part={inner} />))}
        </section>
      )}
    </div>
  )
}

function App() {
  const [fetch] = useState(serverFetch)
  const chat = useChat({ endpoint: '/api/chat', tools, fetch, scheduleNotify: (flush) => flush() })
  const queue = useApprovalQueue(chat)
  const [draft, setDraft] = useState('')
  return (
    <main>
      {chat.messages.map((message) =>
        message.parts.map((part, i) => (part.type === 'text' ? <p key={`${message.id}-${i}`} data-testid={`${message.role}-text`}>{part.text}</p> : <Call key={part.toolCallId} part={part} />)),
      )}
      {queue.current && <Dialog key={queue.current.toolCallId} chat={chat} approval={queue.current} />}
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

describe("a subagent's approval in the hooks", () => {
  it('is the queue’s current approval, titled with its path, shown inside its subagent, and approved with an edit checked against the inner schema', async () => {
    sent.length = 0
    render(<App />)
    await say('write about owls')
    const dialog = await screen.findByRole('dialog', { name: 'Allow research-assistant → send_email?' })
    const subagent = screen.getByRole('region', { name: 'research-assistant (suspended)' })
    expect(subagent.textContent).toContain('Emailing the team.')
    expect(within(subagent).getByTestId('call-send_email').getAttribute('data-state')).toBe('approval-requested')

    const to = within(dialog).getByLabelText('to')
    fireEvent.change(to, { target: { value: 'not an email' } })
    fireEvent.submit(to.closest('form')!)
    expect(await within(dialog).findByRole('alert')).toBeTruthy()
    expect(sent).toEqual([])
    fireEvent.change(to, { target: { value: 'owls@example.com' } })
    fireEvent.submit(to.closest('form')!)
    await waitFor(() => expect(answer()).toBe('Assistant: "Sent to owls@example.com."'))
    expect(sent).toEqual([{ to: 'owls@example.com', subject: 'About owls' }])
    expect(screen.getByRole('region', { name: 'research-assistant (finished)' })).toBeTruthy()
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  it('denies with a reason the subagent reads', async () => {
    sent.length = 0
    render(<App />)
    await say('write about bats')
    const dialog = await screen.findByRole('dialog', { name: 'Allow research-assistant → send_email?' })
    fireEvent.change(within(dialog).getByLabelText('Reason to deny'), { target: { value: 'not today' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Deny' }))
    await waitFor(() => expect(answer()).toBe('Assistant: "Not sent: not today"'))
    expect(sent).toEqual([])
  })
})

describe("an agent tool's own approval", () => {
  it('lists in its form what approving delegates: the tools the subagent may call, and which will still ask', async () => {
    const guarded = agentTool({
      name: 'guarded-assistant',
      description: 'Emails, once allowed',
      model: scriptedModel([{ when: /.*/, call: () => ({ tool: 'send_email', input: { to: 'team@example.com', subject: 'Hi' } }), then: ([r]) => `email ${r.status}` }]),
      tools: [sendEmail.server(() => ({ ok: true }))],
      needsApproval: true,
    })
    const serve = createChatHandler({ model: scriptedModel([{ when: /.*/, call: () => ({ tool: 'guarded-assistant', input: { task: 'go' } }), then: ([r]) => `Done: ${r.content}` }]), tools: [guarded] })
    const fetch: NonNullable<ChatClientOptions['fetch']> = (input, init) => serve(new Request(new URL(String(input), 'http://test'), init))
    function Delegating() {
      const chat = useChat({ endpoint: '/api/chat', fetch, scheduleNotify: (flush) => flush() })
      const queue = useApprovalQueue(chat)
      return (
        <main>
          <button onClick={() => void chat.send('go')}>Go</button>
          {queue.current && <Grants key={queue.current.toolCallId} chat={chat} approval={queue.current} />}
        </main>
      )
    }
    function Grants({ chat, approval }: { chat: UseChatResult<readonly AnyTool[]>; approval: PendingApproval }) {
      const form = useApprovalForm(chat, approval)
      return (
        <ul aria-label={`Allow ${form.path.join(' → ')}`}>
          {form.delegation?.tools.map((tool) => <li key={tool.name}>{`${tool.name}: ${tool.asks}`}</li>)}
        </ul>
      )
    }
    render(<Delegating />)
    fireEvent.click(screen.getByRole('button', { name: 'Go' }))
    const list = await screen.findByRole('list', { name: 'Allow guarded-assistant' })
    expect(within(list).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['send_email: always'])
  })
})

describe('ToolgateDevtools with subagents', () => {
  it('indents a subagent’s events under its start, and names the waiting call by its path', async () => {
    const serve = handler(true)
    const fetch = (input: string, init?: RequestInit) => serve(new Request(new URL(input, 'http://test'), init))
    const response = await fetch('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'about cats' }) })
    const threadId = (JSON.parse((await response.text()).split('\n').find((line) => line.startsWith('data: '))!.slice(6)) as { threadId: string }).threadId
    render(<ToolgateDevtools endpoint="/api/chat" threadId={threadId} fetch={fetch} refreshMs={60_000} />)
    const panel = screen.getByTestId('toolgate-devtools')
    await waitFor(() => expect(within(panel).getByTestId('devtools-status').textContent).toBe('interrupted'))
    const rows = within(panel).getAllByTestId('devtools-event').map((row) => `${row.getAttribute('data-depth')} ${row.getAttribute('data-type')}`)
    expect(rows).toContain('0 SUBAGENT_STARTED')
    expect(rows).toContain('1 TOOL_CALL_START')
    expect(rows).toContain('0 SUBAGENT_FINISHED')
    expect(rows.filter((row) => row.endsWith('TOOL_CALL_START')).map((row) => row[0])).toEqual(['0', '1'])
    fireEvent.click(within(panel).getByRole('tab', { name: /Interrupts/ }))
    expect(within(panel).getByTestId('devtools-interrupt-path').textContent).toBe('research-assistant → send_email')
  })
})
