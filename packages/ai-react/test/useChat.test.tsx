import { StrictMode, memo, useState } from 'react'
import { act, cleanup, fireEvent, render, renderHook, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import type { ChatClient, ChatMessage, ChatClientOptions } from '@toolgate/ai/client'
import { type ChatModel, createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { ChatError } from '@toolgate/ai/client'
import { useChat, useChatClient, type UseChatResult, useChatSelector } from '@toolgate/ai-react'

afterEach(cleanup)

const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ tempC: v.number() }),
  metadata: { icon: '☁️' },
})

const deleteFiles = toolDefinition({
  name: 'delete_files',
  description: 'Deletes files',
  inputSchema: v.object({ pattern: v.string() }),
  outputSchema: v.object({ deleted: v.number() }),
  needsApproval: (input) => ({ reason: `Deletes ${input.pattern}` }),
})

const locate = toolDefinition({
  name: 'get_location',
  description: 'Where the user is',
  outputSchema: v.object({ city: v.string() }),
})

const model = scriptedModel([
  { when: /hello/i, reply: 'Hi there, how can I help?' },
  { when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]) => `It is ${r.tool === 'get_weather' ? r.output?.tempC : '?'}°C.` },
  { when: /delete (\S+)/i, call: (m) => ({ tool: 'delete_files', input: { pattern: m[1] } }), then: ([r]) => `Result: ${r.status}` },
  { when: /where/i, call: () => ({ tool: 'get_location' }), then: ([r]) => `You are in ${r.tool === 'get_location' ? r.output?.city : '?'}.` },
], { tools: [weather, deleteFiles, locate] })

function serverFetch(chatModel: ChatModel = model): NonNullable<ChatClientOptions['fetch']> {
  const handler = createChatHandler({
    model: chatModel,
    tools: [weather.server(async ({ city }) => ({ tempC: city.length })), deleteFiles.server(async () => ({ deleted: 3 })), locate],
  })
  return (input, init) => handler(new Request(new URL(String(input), 'http://test'), init))
}

const tools = [weather, deleteFiles, locate.client(async () => ({ city: 'Lima' }))] as const

function textOf(message: ChatMessage): string {
  return message.parts.map((part) => (part.type === 'text' ? part.text : `[${part.toolName}: ${part.state}]`)).join(' ')
}

function Chat({ options }: { options: Omit<ChatClientOptions<typeof tools>, 'endpoint' | 'tools'> }) {
  const chat = useChat({ endpoint: '/api/chat', tools, ...options })
  const [draft, setDraft] = useState('')
  return (
    <main>
      <p data-testid="status">{chat.status}</p>
      <p data-testid="thread">{chat.threadId}</p>
      {chat.error && <p role="alert">{chat.error.message}</p>}
      <ul aria-label="messages">
        {chat.messages.map((message) => (
          <li key={message.id}>
            {message.role}: {textOf(message)}
          </li>
        ))}
      </ul>
      {chat.pendingApprovals.map((call) => (
        <div key={call.toolCallId} role="dialog" aria-label={`Approve ${call.toolName}`}>
          <p>{call.approval?.reason}</p>
          <button onClick={() => void chat.approve(call.toolCallId)}>Approve</button>
          <button onClick={() => void chat.deny(call.toolCallId, 'not now')}>Deny</button>
        </div>
      ))}
      <input aria-label="message" value={draft} onChange={(event) => setDraft(event.target.value)} />
      <button
        onClick={() => {
          void chat.send(draft)
          setDraft('')
        }}
      >
        Send
      </button>
      <button onClick={chat.stop}>Stop</button>
    </main>
  )
}

function sendMessage(text: string) {
  fireEvent.change(screen.getByLabelText('message'), { target: { value: text } })
  fireEvent.click(screen.getByText('Send'))
}

async function messages(): Promise<string[]> {
  await waitFor(() => expect(screen.getByTestId('status').textContent).not.toBe('streaming'))
  return screen.getByRole('list', { name: 'messages' }).textContent === ''
    ? []
    : screen.getAllByRole('listitem').map((item) => item.textContent ?? '')
}

describe('useChat', () => {
  it('sends a message and renders the streamed reply', async () => {
    render(<Chat options={{ fetch: serverFetch() }} />)
    expect(screen.getByTestId('status').textContent).toBe('idle')
    sendMessage('hello')
    await waitFor(() => expect(screen.getAllByRole('listitem').map((item) => item.textContent)).toEqual(['user: hello', 'assistant: Hi there, how can I help?']))
    expect(screen.getByTestId('status').textContent).toBe('idle')
  })

  it('renders tool calls and runs client tools', async () => {
    render(<Chat options={{ fetch: serverFetch() }} />)
    sendMessage('weather in Oslo')
    await waitFor(() => expect(screen.getAllByRole('listitem').at(-1)?.textContent).toBe('assistant: It is 4°C.'))
    expect(screen.getAllByRole('listitem')[1]?.textContent).toBe('assistant: [get_weather: output-available]')

    sendMessage('where am I?')
    await waitFor(() => expect(screen.getAllByRole('listitem').at(-1)?.textContent).toBe('assistant: You are in Lima.'))
  })

  it('shows approvals with their reason and resumes when approved or denied', async () => {
    render(<Chat options={{ fetch: serverFetch() }} />)
    sendMessage('delete *.tmp')
    const dialog = await screen.findByRole('dialog', { name: 'Approve delete_files' })
    expect(dialog.textContent).toContain('Deletes *.tmp')
    expect(screen.getByTestId('status').textContent).toBe('awaiting-approval')
    fireEvent.click(screen.getByText('Approve'))
    await waitFor(() => expect(screen.getAllByRole('listitem').at(-1)?.textContent).toBe('assistant: Result: success'))
    expect(screen.queryByRole('dialog')).toBeNull()

    sendMessage('delete *.log')
    fireEvent.click(await screen.findByText('Deny'))
    await waitFor(() => expect(screen.getAllByRole('listitem').at(-1)?.textContent).toBe('assistant: Result: denied'))
  })

  it('shows the server error, and calls the latest onError', async () => {
    const first = vi.fn()
    const latest = vi.fn()
    const fetch = serverFetch()
    const { rerender } = render(<Chat options={{ fetch, threadId: 'thread_gone', onError: first }} />)
    await screen.findByRole('alert')
    expect(screen.getByRole('alert').textContent).toMatch(/thread_gone/)
    expect(screen.getByTestId('status').textContent).toBe('error')
    rerender(<Chat options={{ fetch, threadId: 'thread_gone', onError: latest }} />)
    sendMessage('hello') // the thread does not exist: the server refuses again
    await waitFor(() => expect(latest).toHaveBeenCalledTimes(1))
    expect(first).toHaveBeenCalledTimes(1)
  })

  it('exports ChatError as a class, so `instanceof` tells a chat failure', async () => {
    const { result } = renderHook(() => useChat({ endpoint: '/chat', fetch: serverFetch(), threadId: 'thread_gone' }))
    await act(() => result.current.send('hello'))
    expect(result.current.error).toBeInstanceOf(ChatError)
    expect(result.current.error).toMatchObject({ code: 'THREAD_NOT_FOUND', status: 404 })
  })

  it('loads the thread it is given, in StrictMode too', async () => {
    const fetch = serverFetch()
    const first = render(<Chat options={{ fetch }} />)
    sendMessage('delete a.txt')
    await screen.findByRole('dialog')
    const threadId = screen.getByTestId('thread').textContent!
    expect(threadId).toMatch(/^thread_/)
    first.unmount()

    render(
      <StrictMode>
        <Chat options={{ fetch, threadId }} />
      </StrictMode>,
    )
    const dialog = await screen.findByRole('dialog', { name: 'Approve delete_files' })
    expect(await messages()).toEqual(['user: delete a.txt', 'assistant: [delete_files: approval-requested]'])
    fireEvent.click(dialog.querySelector('button')!)
    await waitFor(() => expect(screen.getAllByRole('listitem').at(-1)?.textContent).toBe('assistant: Result: success'))
  })

  it('keeps the client and its methods across renders, and stops it on unmount', async () => {
    let release!: () => void
    const aborted = vi.fn()
    const slow: ChatModel = {
      async *stream({ signal }) {
        signal.addEventListener('abort', aborted)
        yield { type: 'text-delta', delta: 'Thinking…' }
        await new Promise<void>((resolve) => (release = resolve))
      },
    }
    const { result, rerender, unmount } = renderHook((props: { n: number }) => useChat({ endpoint: '/chat', fetch: serverFetch(slow), tools, ...props }), {
      initialProps: { n: 1 },
    })
    const first: UseChatResult<typeof tools> = result.current
    rerender({ n: 2 })
    expect(result.current).toBe(first) // nothing changed: the same result object
    expect(result.current.client).toBe(first.client)

    act(() => void result.current.send('hello'))
    await waitFor(() => expect(result.current.messages).toHaveLength(2))
    expect(result.current.send).toBe(first.send)
    expect(result.current.status).toBe('streaming')
    unmount()
    await waitFor(() => expect(aborted).toHaveBeenCalled())
    expect(first.client.getSnapshot().status).toBe('idle')
    release()
  })
})

describe('rendering under long streams', () => {
  it('re-renders memoised messages only when they change', async () => {
    const renders = new Map<string, number>()
    const Message = memo(function Message({ message }: { message: ChatMessage }) {
      renders.set(message.id, (renders.get(message.id) ?? 0) + 1)
      return <li>{textOf(message)}</li>
    })
    function List() {
      const { messages, send } = useChat({ endpoint: '/chat', fetch: serverFetch(), tools })
      return (
        <>
          <ul>{messages.map((message) => <Message key={message.id} message={message} />)}</ul>
          <button onClick={() => void send('hello')}>hello</button>
          <button onClick={() => void send('weather in Rome')}>weather</button>
        </>
      )
    }
    render(<List />)
    fireEvent.click(screen.getByText('hello'))
    await waitFor(() => expect(screen.getAllByRole('listitem')).toHaveLength(2))
    await waitFor(() => expect(screen.getAllByRole('listitem')[1]?.textContent).toBe('Hi there, how can I help?'))
    const settled = new Map(renders)

    fireEvent.click(screen.getByText('weather'))
    await waitFor(() => expect(screen.getAllByRole('listitem').at(-1)?.textContent).toBe('It is 4°C.'))
    const [userId, replyId] = [...settled.keys()]
    expect(renders.get(userId!)).toBe(settled.get(userId!))
    expect(renders.get(replyId!)).toBe(settled.get(replyId!))
  })

  it('renders a selector component only when its selection changes', async () => {
    let statusRenders = 0
    let idsRenders = 0
    const Status = memo(function Status({ chat }: { chat: ChatClient<typeof tools> }) {
      statusRenders++
      return <p data-testid="s">{useChatSelector(chat, (state) => state.status)}</p>
    })
    const Ids = memo(function Ids({ chat }: { chat: ChatClient<typeof tools> }) {
      idsRenders++
      const ids = useChatSelector(
        chat,
        (state) => state.messages.map((message) => message.id),
        (a, b) => a.length === b.length && a.every((id, i) => id === b[i]),
      )
      return <p data-testid="n">{ids.length}</p>
    })
    let client!: ChatClient<typeof tools>
    function App() {
      client = useChatClient({ endpoint: '/chat', fetch: serverFetch(scriptedModel([{ when: /./, reply: 'one two three four five six seven eight' }], { delayMs: 2 })), tools })
      return (
        <>
          <Status chat={client} />
          <Ids chat={client} />
        </>
      )
    }
    render(<App />)
    let notifications = 0
    client.subscribe(() => notifications++)
    expect([statusRenders, idsRenders]).toEqual([1, 1])
    await act(() => client.send('hello'))
    expect(screen.getByTestId('n').textContent).toBe('2')
    expect(screen.getByTestId('s').textContent).toBe('idle')
    expect(notifications).toBeGreaterThan(4) // the words arrived in several frames
    expect(statusRenders).toBe(3) // idle, streaming, idle
    expect(idsRenders).toBeLessThanOrEqual(3) // [], [user], [user, assistant]
  })
})
