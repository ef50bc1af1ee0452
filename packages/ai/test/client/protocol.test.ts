import { describe, expect, it, vi } from 'vitest'
import { createChatClient, type ChatClientOptions } from '@toolgate/ai/client'
import type { RunEvent, ToolInterrupt } from '@toolgate/ai/protocol'
import { deferred, location, sseBody, sseFetch, texts, toolCalls } from './helpers.ts'

// Responses built by hand from the protocol types: what a broken server or network can do.

const started: RunEvent = { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' }
const finished: RunEvent = { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1', outcome: { type: 'success' } }
const text = (delta: string): RunEvent => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta })
const paused = (...interrupts: ToolInterrupt[]): RunEvent => ({
  type: 'RUN_FINISHED',
  threadId: 't1',
  runId: 'r1',
  outcome: { type: 'interrupt', interrupts },
})

function client(fetch: NonNullable<ChatClientOptions['fetch']>, options: Partial<ChatClientOptions> = {}) {
  return createChatClient({ endpoint: '/chat', fetch, scheduleNotify: (flush) => flush(), ...options })
}

const accepted = (interrupts: ToolInterrupt[] = []) => () =>
  new Response(JSON.stringify({ threadId: 't1', interrupts }), { status: 202, headers: { 'content-type': 'application/json' } })

describe('ChatClient against a misbehaving server', () => {
  it('fails with BAD_RESPONSE on an event that is not JSON, keeping what came before', async () => {
    const chat = client(sseFetch([started, text('Hello'), 'data: {not json\n\n', text(' never')]))
    await chat.send('hi')
    const state = chat.getSnapshot()
    expect(state).toMatchObject({ status: 'error', error: { code: 'BAD_RESPONSE', message: expect.stringMatching(/not JSON/) } })
    expect(texts(state)).toEqual(['user: hi', 'assistant: Hello'])
  })

  it.each([
    ['an event without a type', 'data: {"delta":"x"}\n\n', /without a type/],
    ['an event without its fields', 'data: {"type":"TOOL_CALL_ARGS","toolCallId":"c1"}\n\n', /TOOL_CALL_ARGS event without a string `delta`/],
    ['a bad outcome', 'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt"}}\n\n', /without `interrupts`/],
    ['a bad interrupt', 'data: {"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":1}]}}\n\n', /interrupt without/],
  ])('fails with BAD_RESPONSE on %s', async (_name, chunk, message) => {
    const chat = client(sseFetch([started, chunk]))
    await chat.send('hi')
    expect(chat.getSnapshot().error).toMatchObject({ code: 'BAD_RESPONSE', message: expect.stringMatching(message) })
  })

  it('skips event types it does not know and events about unknown calls', async () => {
    const chat = client(
      sseFetch([
        started,
        'data: {"type":"STEP_STARTED","stepName":"x"}\n\n',
        { type: 'TOOL_CALL_ARGS', toolCallId: 'ghost', delta: '{}' },
        { type: 'TOOL_CALL_END', toolCallId: 'ghost' },
        { type: 'TOOL_CALL_RESULT', messageId: 'm2', toolCallId: 'ghost', content: '1', role: 'tool', metadata: { status: 'success', output: 1 } },
        text('ok'),
        finished,
      ]),
    )
    await chat.send('hi')
    expect(chat.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
    expect(texts(chat.getSnapshot())).toEqual(['user: hi', 'assistant: ok'])
  })

  it('fails with NETWORK when the stream ends before the run finished', async () => {
    const chat = client(
      sseFetch([started, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'get_location' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"precise": tr' }]),
    )
    await chat.send('hi')
    const state = chat.getSnapshot()
    expect(state.error).toMatchObject({ code: 'NETWORK', message: 'The connection closed before the run finished' })
    // Nothing will say how the call ended: it ends here, keeping what was read of its arguments.
    expect(toolCalls(state)[0]).toMatchObject({ state: 'output-error', input: {}, error: 'The connection closed before the run finished' })
  })

  it('ends the calls a failed run left open with the failure, unless the server said how they ended', async () => {
    const start = (id: string): RunEvent => ({ type: 'TOOL_CALL_START', toolCallId: id, toolCallName: 'get_location', parentMessageId: 'm1' })
    const fetch = sseFetch(
      [
        started,
        start('c1'),
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"precise":true}' },
        { type: 'TOOL_CALL_END', toolCallId: 'c1' },
        start('c2'),
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c2', delta: '{"prec' },
        start('c3'),
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c3', delta: '{"precise":false,' },
        { type: 'TOOL_CALL_RESULT', messageId: 'r3', toolCallId: 'c3', content: 'The run failed before this call finished', role: 'tool', metadata: { status: 'error' } },
        { type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model is overloaded' },
      ],
      // The next run says how c1 ended after all: the server's word replaces the client's guess.
      [started, { type: 'TOOL_CALL_RESULT', messageId: 'r1', toolCallId: 'c1', content: 'cut short', role: 'tool', metadata: { status: 'error' } }, text('Again.'), finished],
    )
    const chat = client(fetch)
    await chat.send('hi')
    const failed = chat.getSnapshot()
    expect(failed.status).toBe('error')
    expect(toolCalls(failed).map(({ state, input, error }) => ({ state, input, error }))).toEqual([
      { state: 'output-error', input: { precise: true }, error: 'The model is overloaded' },
      { state: 'output-error', input: {}, error: 'The model is overloaded' },
      { state: 'output-error', input: { precise: false }, error: 'The run failed before this call finished' },
    ])

    await chat.send('again')
    expect(toolCalls(chat.getSnapshot()).map((part) => part.error)).toEqual(['cut short', 'The model is overloaded', 'The run failed before this call finished'])
    expect(chat.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
  })

  it('keeps the arguments read so far when a call ends before they were complete', async () => {
    const chat = client(
      sseFetch([
        started,
        { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'get_weather', parentMessageId: 'm1' },
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"city": "Pa' },
        { type: 'TOOL_CALL_END', toolCallId: 'c1' },
        finished,
      ]),
    )
    await chat.send('hi')
    expect(toolCalls(chat.getSnapshot())[0]).toMatchObject({ input: { city: 'Pa' } })
  })

  it('fails with NETWORK when the connection breaks mid-stream', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(started)}\n\ndata: ${JSON.stringify(text('Hal'))}\n\n`))
        setTimeout(() => controller.error(new TypeError('network error')), 1)
      },
    })
    const chat = client(sseFetch(() => new Response(body, { headers: { 'content-type': 'text/event-stream' } })))
    await chat.send('hi')
    expect(chat.getSnapshot().error).toMatchObject({ code: 'NETWORK', message: 'The connection broke: network error' })
    expect(texts(chat.getSnapshot())).toEqual(['user: hi', 'assistant: Hal'])
  })

  it('fails with NETWORK when fetch itself fails', async () => {
    const chat = client(async () => {
      throw new TypeError('Failed to fetch')
    })
    await chat.send('hi')
    expect(chat.getSnapshot()).toMatchObject({
      status: 'error',
      error: { code: 'NETWORK', message: 'POST /chat failed: Failed to fetch. Check that the chat server runs at that URL (from another origin, it must answer CORS).' },
    })
  })

  it('takes a RUN_ERROR as the error, with its code and message', async () => {
    const chat = client(sseFetch([started, text('Par'), { type: 'RUN_ERROR', code: 'MODEL_ERROR', message: 'The model is overloaded' }]))
    await chat.send('hi')
    expect(chat.getSnapshot().error).toMatchObject({ code: 'MODEL_ERROR', message: 'The model is overloaded' })
  })

  it.each([502, 503, 504])('reports a proxy\'s %i (the chat server behind it is down) as UNREACHABLE, not INTERNAL', async (status) => {
    const chat = client(sseFetch(() => new Response('<html>Bad gateway</html>', { status, statusText: 'Gateway' })))
    await chat.send('hi')
    expect(chat.getSnapshot().error).toMatchObject({
      code: 'UNREACHABLE',
      status,
      message: `POST /chat answered HTTP ${status} Gateway: the server behind the proxy did not answer. Start the chat server, or check the proxy's target (Vite's server.proxy, nginx, ...).`,
    })
  })

  it('names the URL and the fix when nothing serves the chat at the endpoint (404)', async () => {
    const chat = client(sseFetch(() => new Response('Not Found', { status: 404, statusText: 'Not Found' })))
    await chat.send('hi')
    expect(chat.getSnapshot().error).toMatchObject({ code: 'BAD_RESPONSE', status: 404 })
    expect(chat.getSnapshot().error?.message).toMatch(/^POST \/chat answered HTTP 404 Not Found: no chat handler serves that URL\. Check `endpoint`; .*server\.proxy.*CORS/)
  })

  it('describes any other error response that is not the protocol by its status, as BAD_RESPONSE', async () => {
    const chat = client(sseFetch(() => new Response('<html>oops</html>', { status: 500, statusText: 'Internal Server Error' })))
    await chat.send('hi')
    expect(chat.getSnapshot().error).toMatchObject({ code: 'BAD_RESPONSE', status: 500, message: expect.stringMatching(/^POST \/chat answered HTTP 500 Internal Server Error, not in the chat protocol/) })
  })

  it('refuses a successful response that is neither a stream nor ResumeAccepted', async () => {
    const chat = client(sseFetch(() => new Response('{"hello":1}', { headers: { 'content-type': 'application/json' } })))
    await chat.send('hi')
    expect(chat.getSnapshot().error).toMatchObject({ code: 'BAD_RESPONSE' })
    const html = client(sseFetch(() => new Response('<html/>', { headers: { 'content-type': 'text/html' } })))
    await html.send('hi')
    expect(html.getSnapshot().error).toMatchObject({ code: 'BAD_RESPONSE', message: expect.stringMatching(/not JSON/) })
  })

  it('takes the `metadata.status` of a TOOL_CALL_RESULT at its word', async () => {
    const call = (id: string): RunEvent[] => [
      { type: 'TOOL_CALL_START', toolCallId: id, toolCallName: 'x', parentMessageId: 'm1' },
      { type: 'TOOL_CALL_END', toolCallId: id },
    ]
    const result = (id: string, content: string, extra: object): RunEvent =>
      ({ type: 'TOOL_CALL_RESULT', messageId: `r${id}`, toolCallId: id, content, role: 'tool', ...extra }) as RunEvent
    const chat = client(
      sseFetch([
        started,
        ...call('a'),
        ...call('b'),
        ...call('c'),
        result('a', 'edited; Result: {"ok":1}', { metadata: { status: 'success', output: { ok: 1 } } }),
        result('b', '{"looks":"like json"}', { metadata: { status: 'error' } }),
        result('c', 'denied by the user: no', { metadata: { status: 'denied', reason: 'no' } }),
        finished,
      ]),
    )
    await chat.send('hi')
    expect(toolCalls(chat.getSnapshot()).map(({ state, output, error, approval }) => ({ state, output, error, approval }))).toEqual([
      { state: 'output-available', output: { ok: 1 }, error: undefined, approval: undefined },
      { state: 'output-error', output: undefined, error: '{"looks":"like json"}', approval: undefined },
      { state: 'denied', output: undefined, error: undefined, approval: { approved: false, denyReason: 'no' } },
    ])
  })

  it('validates client tool input before execute and sends the failure back', async () => {
    let ran = false
    const fetch = sseFetch(
      [
        started,
        { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'get_location', parentMessageId: 'm1' },
        { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"precise":"yes"}' },
        { type: 'TOOL_CALL_END', toolCallId: 'c1' },
        paused({ id: 'i1', reason: 'client_tool', toolCallId: 'c1', toolName: 'get_location', input: { precise: 'yes' } }),
      ],
      [started, text('Sorry.'), finished],
    )
    const chat = client(fetch, { tools: [location.client(() => ((ran = true), { city: 'Rome' }))] })
    await chat.send('where')
    expect(ran).toBe(false)
    expect(fetch.requests[1]!.body).toEqual({
      threadId: 't1',
      resume: [{ interruptId: 'i1', error: expect.stringMatching(/^Invalid input for tool "get_location":\n- precise: /) }],
    })
    expect(toolCalls(chat.getSnapshot())[0]).toMatchObject({ state: 'output-error', input: { precise: 'yes' } })
    expect(texts(chat.getSnapshot()).at(-1)).toBe('assistant: Sorry.')
  })

  it('sends answers one request at a time and follows 202 ResumeAccepted', async () => {
    const interrupts: ToolInterrupt[] = [
      { id: 'i1', reason: 'client_tool', toolCallId: 'c1', toolName: 'get_location', input: {} },
      { id: 'i2', reason: 'client_tool', toolCallId: 'c2', toolName: 'get_location', input: {} },
    ]
    const fetch = sseFetch([started, paused(...interrupts)], accepted([interrupts[1]!]), [started, text('Both.'), finished])
    let calls = 0
    const chat = client(fetch, { tools: [location.client(async () => ({ city: `city${++calls}` }))] })
    await chat.send('where')
    expect(fetch.requests.map((request) => request.body)).toEqual([
      { message: 'where' },
      { threadId: 't1', resume: [{ interruptId: 'i1', output: { city: 'city1' } }] },
      { threadId: 't1', resume: [{ interruptId: 'i2', output: { city: 'city2' } }] },
    ])
    expect(chat.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
    expect(texts(chat.getSnapshot()).at(-1)).toBe('assistant: Both.')
  })

  describe('a message sent while answers wait behind a request in flight', () => {
    const interrupts: ToolInterrupt[] = [
      { id: 'i1', reason: 'client_tool', toolCallId: 'c1', toolName: 'get_location', input: {} },
      { id: 'i2', reason: 'client_tool', toolCallId: 'c2', toolName: 'get_location', input: { precise: true } },
      { id: 'i3', reason: 'tool_approval', toolCallId: 'c3', toolName: 'transfer_money', input: { to: 'Bob', amount: 500 } },
    ]
    const hang = () => new Promise<never>(() => {}) as never

    async function waiting(resumeReply: () => Response) {
      const second = deferred<{ city: string }>()
      const fetch = sseFetch([started, paused(...interrupts)], hang, resumeReply, [started, text('Hi.'), finished])
      const chat = client(fetch, { tools: [location.client(({ precise }) => (precise ? second.promise : { city: 'Peru' }))] })
      void chat.send('where')
      await vi.waitFor(() => expect(fetch.requests).toHaveLength(2)) // c1's result, whose answer never comes
      second.resolve({ city: 'Lima' }) // c2 ran: its result waits for the request in flight
      await vi.waitFor(() => expect(toolCalls(chat.getSnapshot())[1]).toMatchObject({ state: 'output-available' }))
      void chat.approve('c3') // waits too
      return { chat, fetch }
    }

    async function scenario(resumeReply: () => Response) {
      const { chat, fetch } = await waiting(resumeReply)
      await chat.send('next')
      return { chat, bodies: fetch.requests.map((request) => request.body) }
    }

    it('sends the results first, without the approvals, which the message cancels', async () => {
      const { chat, bodies } = await scenario(accepted([interrupts[2]!]))
      expect(bodies).toEqual([
        { message: 'where' },
        { threadId: 't1', resume: [{ interruptId: 'i1', output: { city: 'Peru' } }] },
        { threadId: 't1', resume: [{ interruptId: 'i2', output: { city: 'Lima' } }] },
        { threadId: 't1', message: 'next' },
      ])
      const state = chat.getSnapshot()
      expect(state).toMatchObject({ status: 'idle', error: undefined, pendingApprovals: [] })
      expect(toolCalls(state).map((part) => part.state)).toEqual(['output-available', 'output-available', 'cancelled'])
      expect(texts(state).at(-1)).toBe('assistant: Hi.')
    })

    it('sends the message all the same when the server refuses the results, or stops the run they resume', async () => {
      const refused = () =>
        new Response(JSON.stringify({ error: { code: 'INTERRUPT_NOT_FOUND', message: 'No such interrupt' } }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        })
      for (const reply of [refused, () => new Response(sseBody([started, text('Resumed.'), finished]), { headers: { 'content-type': 'text/event-stream' } })]) {
        const { chat, bodies } = await scenario(reply)
        expect(bodies.at(-1)).toEqual({ threadId: 't1', message: 'next' })
        expect(chat.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
        expect(texts(chat.getSnapshot())).toEqual(['user: where', 'user: next', 'assistant: Hi.'])
      }
    })

    it('sends no message when stop() comes while the results are on their way', async () => {
      const { chat, fetch } = await waiting(hang)
      const sending = chat.send('next')
      await vi.waitFor(() => expect(fetch.requests).toHaveLength(3))
      chat.stop()
      await sending
      expect(fetch.requests).toHaveLength(3)
      expect(chat.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
    })
  })

  it('puts calls it never saw streaming into the last assistant message when an interrupt names them', async () => {
    const chat = client(
      sseFetch([started, text('Sure.'), paused({ id: 'i1', reason: 'tool_approval', toolCallId: 'c9', toolName: 'wipe', input: { all: true }, message: 'Wipes all' })]),
    )
    await chat.send('wipe')
    const state = chat.getSnapshot()
    expect(state.messages.at(-1)!.parts).toEqual([
      { type: 'text', text: 'Sure.' },
      expect.objectContaining({ toolCallId: 'c9', state: 'approval-requested', input: { all: true }, approval: { reason: 'Wipes all' } }),
    ])
  })

  it('retries a busy thread after interrupting its own run, until the server lets go of it', async () => {
    const busy = () => () =>
      new Response(JSON.stringify({ error: { code: 'THREAD_BUSY', message: 'A run is streaming on this thread' } }), {
        status: 409,
        headers: { 'content-type': 'application/json' },
      })
    const endless = () => new Response(new ReadableStream(), { headers: { 'content-type': 'text/event-stream' } })
    const fetch = sseFetch(endless, busy(), busy(), [started, text('Second.'), finished])
    const chat = client(fetch)
    void chat.send('first')
    await vi.waitFor(() => expect(fetch.requests).toHaveLength(1))
    await chat.send('second')
    expect(fetch.requests).toHaveLength(4)
    expect(chat.getSnapshot()).toMatchObject({ status: 'idle', error: undefined })
    expect(texts(chat.getSnapshot())).toEqual(['user: first', 'user: second', 'assistant: Second.'])

    const other = client(sseFetch(busy())) // a run it did not interrupt: the error stands
    await other.send('hi')
    expect(other.getSnapshot().error).toMatchObject({ code: 'THREAD_BUSY', status: 409 })
  })

  it('uses the global fetch by default', async () => {
    const original = globalThis.fetch
    const fake = sseFetch([started, text('global'), finished])
    globalThis.fetch = fake as typeof globalThis.fetch
    try {
      const chat = createChatClient({ endpoint: '/chat?tenant=1' })
      await chat.send('hi')
      await chat.load()
      expect(fake.requests.map((request) => request.url)).toEqual(['/chat?tenant=1', '/chat?tenant=1&threadId=t1'])
    } finally {
      globalThis.fetch = original
    }
  })
})
