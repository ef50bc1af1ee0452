/**
 * The scripted models' own cost, measured apart: the CPU one turn's model calls take when nothing
 * else runs (each server's calls of one turn recorded, then replayed and drained in a loop). The
 * server bench takes it off each server's CPU per turn, so no server, floor or peer is charged for
 * the fixture that stands in for a provider (issue 41: Toolgate's scripted model was ~6.6% of its
 * profile). Toolgate and the needed floor run the same model object; TanStack and the AI SDK each
 * their own scripted adapter (bench/tanstackPeer.ts, bench/aiSdkPeer.ts).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createChatHandler, type ChatModel, type ModelRequest } from '@toolgate/ai/server'
import { aiSdkHandler, scriptedLanguageModel } from './aiSdkPeer.ts'
import { adapterFor, tanstackHandler } from './tanstackPeer.ts'
import { isShortTurn, modelOf, postJson, weather, type Workload } from './workload.ts'

export interface ModelCosts {
  /** Toolgate's (and the needed floor's: the same model) ms of CPU per turn. */
  readonly toolgate: number
  readonly tanstack: number
  readonly aiSdk: number
}

/** CPU ms per turn of `replay`, after a warm-up: the lowest of three runs. */
async function cpuPerTurn(replay: () => Promise<void>, turns: number): Promise<number> {
  for (let i = 0; i < Math.min(200, turns); i++) await replay()
  let best = Number.POSITIVE_INFINITY
  for (let run = 0; run < 3; run++) {
    const before = process.cpuUsage()
    for (let i = 0; i < turns; i++) await replay()
    const { user, system } = process.cpuUsage(before)
    best = Math.min(best, (user + system) / 1000 / turns)
  }
  return best
}

async function drain(iterable: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of iterable);
}

/** One Toolgate turn's model calls, recorded through the chat handler: replaying them drains the same streams. */
export async function toolgateModelReplay(workload: Workload): Promise<() => Promise<void>> {
  const message = workload === 'weather' ? 'weather in Paris' : 'go'
  const model = modelOf[workload]
  const requests: ModelRequest[] = []
  const recording: ChatModel = { stream: (request) => (requests.push(request), model.stream(request)) }
  const handler = createChatHandler({ model: recording, tools: [weather] })
  await (await handler(new Request('http://bench.local/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) }))).text()
  return async () => {
    for (const request of requests) await drain(model.stream(request))
  }
}

export async function modelCosts(workload: Workload): Promise<ModelCosts> {
  const message = workload === 'weather' ? 'weather in Paris' : 'go'
  const turns = isShortTurn(workload) ? 3000 : 20

  const toolgate = await cpuPerTurn(await toolgateModelReplay(workload), turns)

  // TanStack's scripted adapter: its calls of one turn, replayed.
  const adapter = adapterFor(workload) as unknown as { chatStream: (options: unknown) => AsyncIterable<unknown> }
  const tanstackCalls: unknown[] = []
  const recordingAdapter = { ...adapter, chatStream: (options: unknown) => (tanstackCalls.push(options), adapter.chatStream(options)) }
  await tanstackHandler(weather, workload, recordingAdapter as never)(message).text()
  const tanstack = await cpuPerTurn(async () => {
    for (const options of tanstackCalls) await drain(adapter.chatStream(options))
  }, turns)

  // The AI SDK's scripted language model: its calls of one turn, replayed.
  const aiSdkCalls: unknown[] = []
  const languageModel = scriptedLanguageModel(workload) as unknown as { doStream: (options: unknown) => Promise<{ stream: ReadableStream<unknown> }> }
  const server = createServer(aiSdkHandler(workload, scriptedLanguageModel(workload, (options) => aiSdkCalls.push(options))))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  await postJson(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { message })
  server.closeAllConnections()
  server.close()
  const aiSdk = await cpuPerTurn(async () => {
    for (const options of aiSdkCalls) await drain((await languageModel.doStream(options)).stream as unknown as AsyncIterable<unknown>)
  }, turns)

  return { toolgate, tanstack, aiSdk }
}
