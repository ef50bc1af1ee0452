/**
 * Decoding a streamed model response: 2,000 SSE events per adapter, from an in-memory body cut
 * into 4 KB network-sized pieces, to the last chunk. Ours is the whole adapter (SSE reading,
 * JSON, chunk mapping); beside it the official SDK's stream parser on the same bytes (the SDK
 * does less: it yields the raw events). Run with `npm run bench` in packages/ai.
 */
import { Stream as AnthropicStream } from '@anthropic-ai/sdk/core/streaming'
import { Stream as OpenAIStream } from 'openai/core/streaming'
import { anthropicModel, geminiModel, openAIChatModel, openAIResponsesModel } from '@toolgate/ai/providers'
import type { ChatModel } from '@toolgate/ai/server'

const EVENTS = 2_000
const BUDGET_MS = 400

const sse = (events: unknown[]) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')
/** Anthropic names each event (`event: message_start`), and its SDK reads the name. */
const namedSse = (events: readonly ({ readonly type: string } & Record<string, unknown>)[]) => events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('')
const words = Array.from({ length: EVENTS - 2 }, (_, i) => `word${i} `)

const bodies = {
  openai: sse([
    ...words.map((content) => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt', choices: [{ index: 0, delta: { content } }] })),
    { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt', choices: [], usage: { prompt_tokens: 5, completion_tokens: EVENTS } },
  ]) + 'data: [DONE]\n\n',
  responses: sse([
    { type: 'response.created', response: { id: 'r1' } },
    ...words.map((delta) => ({ type: 'response.output_text.delta', item_id: 'm1', output_index: 0, content_index: 0, delta })),
    { type: 'response.completed', response: { id: 'r1', usage: { input_tokens: 5, output_tokens: EVENTS } } },
  ]),
  anthropic: namedSse([
    { type: 'message_start', message: { id: 'm1', usage: { input_tokens: 5, output_tokens: 1 } } },
    ...words.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    { type: 'message_stop' },
  ]),
  gemini: sse([
    ...words.map((text) => ({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }] })),
    { candidates: [{ content: { role: 'model', parts: [{ text: '.' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: EVENTS } },
    { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP', index: 0 }] },
  ]),
}

const encoder = new TextEncoder()
function response(text: string): Response {
  const bytes = encoder.encode(text)
  let offset = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.subarray(offset, (offset += 4096)))
    },
  })
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
}

const fetchOf = (text: string) => async () => response(text)

async function drainModel(model: ChatModel): Promise<number> {
  let n = 0
  for await (const _ of model.stream({ messages: [{ role: 'user', id: 'u', content: 'hi' }], tools: [], signal: new AbortController().signal })) n++
  return n
}

/** Counts what the SDK yields; a parser that yields nothing measures nothing, so that fails loudly. */
async function drainStream(stream: AsyncIterable<unknown>): Promise<number> {
  let n = 0
  for await (const _ of stream) n++
  if (n < EVENTS - 2) throw new Error(`the SDK parser yielded ${n} events of ${EVENTS}`)
  return n
}

/** Milliseconds per decode, the median of passes over about BUDGET_MS. */
async function time(run: () => Promise<number>): Promise<number> {
  await run()
  const samples: number[] = []
  const start = performance.now()
  while (performance.now() - start < BUDGET_MS || samples.length < 5) {
    const t = performance.now()
    await run()
    samples.push(performance.now() - t)
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)]!
}

const rows: { adapter: string; 'ours ms': string; 'official SDK parser ms': string; 'ours / SDK': string }[] = []
const cases: [string, () => Promise<number>, (() => Promise<number>) | undefined][] = [
  [
    'openAIChatModel',
    () => drainModel(openAIChatModel({ model: 'gpt', fetch: fetchOf(bodies.openai) })),
    () => drainStream(OpenAIStream.fromSSEResponse(response(bodies.openai), new AbortController())),
  ],
  [
    'openAIResponsesModel',
    () => drainModel(openAIResponsesModel({ model: 'gpt', fetch: fetchOf(bodies.responses) })),
    () => drainStream(OpenAIStream.fromSSEResponse(response(bodies.responses), new AbortController())),
  ],
  [
    'anthropicModel',
    () => drainModel(anthropicModel({ model: 'claude', fetch: fetchOf(bodies.anthropic) })),
    () => drainStream(AnthropicStream.fromSSEResponse(response(bodies.anthropic), new AbortController())),
  ],
  // @google/genai has no public stream parser to set beside ours.
  ['geminiModel', () => drainModel(geminiModel({ model: 'gemini', fetch: fetchOf(bodies.gemini) })), undefined],
]
for (const [adapter, ours, sdk] of cases) {
  const oursMs = await time(ours)
  const sdkMs = sdk ? await time(sdk) : undefined
  rows.push({
    adapter,
    'ours ms': oursMs.toFixed(2),
    'official SDK parser ms': sdkMs === undefined ? '–' : sdkMs.toFixed(2),
    'ours / SDK': sdkMs === undefined ? '–' : `${(oursMs / sdkMs).toFixed(2)}x`,
  })
}

console.log(`\nDecoding a ${EVENTS.toLocaleString('en-US')}-event streamed response (Node ${process.version})\n`)
console.table(rows)
