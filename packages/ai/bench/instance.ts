/**
 * One app process for the benches that measure a server from outside (`startInstance` in
 * workload.ts): the chat handler, the TanStack peer, or a floor, over HTTP on a free port. Prints
 * its port, then serves until killed; answers the message 'cpu' with its `process.cpuUsage()`, and
 * exits on 'exit'; profiles between 'profile-start' and 'profile-stop'; with TURN_COUNTS set, counts
 * what it does between 'counts-start' and 'counts-stop' (bench/turnCountsHook.ts).
 *
 * SERVE: see `Serve` in workload.ts. WORKLOAD: weather (default) | text | args.
 */
import { createServer, type RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Session } from 'node:inspector'
import * as v from 'valibot'
import { createChatHandler, toNodeHandler, type ChatModel } from '@toolgate/ai/server'
import { aiSdkHandler } from './aiSdkPeer.ts'
import { neededFloor } from './neededFloor.ts'
import { tanstackHandler } from './tanstackPeer.ts'
import { modelOf, nextLoopTurn, weather, type Workload } from './workload.ts'

const workload = (process.env.WORKLOAD ?? 'weather') as Workload
/** MODEL_URL: the model answers over HTTP (aimock serving OpenAI Chat Completions at this URL), for Toolgate and TanStack alike. */
const modelUrl = process.env.MODEL_URL
const model: ChatModel = modelUrl ? await httpModel(modelUrl) : modelOf[workload]
if (!model) throw new Error(`WORKLOAD must be weather, text, args or hello, not ${workload}`)
const message = workload === 'weather' ? 'weather in Paris' : 'go'

async function httpModel(url: string): Promise<ChatModel> {
  const { openAIChatModel } = await import('@toolgate/ai/providers')
  return openAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-bench', baseURL: `${url}/v1` })
}

async function listener(): Promise<RequestListener> {
  switch (process.env.SERVE) {
    case 'toolgate':
      return toNodeHandler(createChatHandler({ model, tools: [weather] }))
    case 'toolgate-redis': {
      const { createClient } = await import('redis')
      const { redisStore } = await import('@toolgate/ai/server/redis')
      const client = await createClient({ url: process.env.REDIS_URL }).connect()
      return toNodeHandler(createChatHandler({ model, tools: [weather], store: redisStore({ client, prefix: 'instances:' }) }))
    }
    case 'tanstack': {
      const adapter = modelUrl ? await tanstackOpenAI(modelUrl) : undefined
      const answer = tanstackHandler(weather, workload, adapter)
      return toNodeHandler(async (request) => answer(((await request.json()) as { message: string }).message))
    }
    case 'ai-sdk':
      return aiSdkHandler(workload)
    case 'needed':
      return neededFloor(model, { name: 'get_weather', inputSchema: v.object({ city: v.string() }), outputSchema: v.object({ tempC: v.number() }), run: ({ city }: { city: string }) => ({ tempC: city.length }) })
    case 'aimock':
      return await aimock()
    case 'bare': {
      const writes = await toolgateNodeWrites()
      return (req, res) => {
        let body = ''
        req.setEncoding('utf8')
        req.on('data', (data: string) => (body += data))
        req.on('end', async () => {
          JSON.parse(body)
          res.writeHead(200, SSE_HEADERS)
          for (const chunk of writes.slice(0, -1)) {
            res.write(chunk)
            await nextLoopTurn()
          }
          res.end(writes.at(-1))
        })
      }
    }
    default:
      throw new Error(`SERVE must be toolgate, toolgate-redis, tanstack, ai-sdk, needed, bare or aimock, not ${process.env.SERVE}`)
  }
}

/** TanStack AI's own OpenAI Chat Completions adapter, pointed at the same aimock. */
async function tanstackOpenAI(url: string) {
  const { createOpenaiChatCompletions } = await import('@tanstack/ai-openai')
  return createOpenaiChatCompletions('gpt-4o-mini', 'sk-bench', { baseURL: `${url}/v1` }) as never
}

/**
 * aimock serving OpenAI Chat Completions streaming for the weather turn: a call of `get_weather`,
 * then the answer once its result is in. Its own process, so neither server pays for it.
 */
async function aimock(): Promise<RequestListener> {
  const { LLMock } = await import('@copilotkit/aimock')
  const mock = new LLMock({ port: 0, host: '127.0.0.1' })
  mock.addFixture({ match: { userMessage: 'weather in Paris', hasToolResult: false }, response: { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] } })
  mock.addFixture({ match: { userMessage: 'weather in Paris', hasToolResult: true }, response: { content: 'It is 5°C.' } })
  await mock.start()
  console.log(`port ${new URL(mock.url).port}`)
  // Its journal of requests would grow with every turn of the bench: cleared now and then.
  setInterval(() => mock.clearRequests(), 1000).unref()
  // aimock answers on its own server; this process's listener is never reached.
  return () => {}
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' }

/**
 * The writes of one Toolgate turn of the workload as its Node path makes them (`toNodeHandler`,
 * recorded on a real `ServerResponse`): what the bare floor writes, in as many writes. Taken from
 * the Node path and not from the Fetch body's chunks, so the floor never pays for more writes than
 * Toolgate makes on the same server.
 */
async function toolgateNodeWrites(): Promise<(string | Uint8Array)[]> {
  const handle = toNodeHandler(createChatHandler({ model, tools: [weather] }))
  const writes: (string | Uint8Array)[] = []
  const recorder = createServer((req, res) => {
    const { write, end } = res
    res.write = ((...args: unknown[]) => {
      writes.push(args[0] as string | Uint8Array)
      return Reflect.apply(write, res, args)
    }) as typeof res.write
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] === 'string' || args[0] instanceof Uint8Array) writes.push(args[0])
      return Reflect.apply(end, res, args)
    }) as typeof res.end
    void handle(req, res)
  })
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve))
  const { port } = recorder.address() as AddressInfo
  const response = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) })
  if (response.status !== 200) throw new Error(`toolgate turn failed: ${response.status}`)
  await response.text()
  recorder.closeAllConnections()
  await new Promise((resolve) => recorder.close(resolve))
  return writes
}

// TURN_COUNTS (bench/turnCounts.ts): count what the process does between 'counts-start' and 'counts-stop'.
if (process.env.TURN_COUNTS) await import('./turnCountsHook.ts')

const server = createServer(await listener())
// Longer than any wait of the load generator's: a kept socket closed as it is reused would fail a turn (ECONNRESET).
server.keepAliveTimeout = 120_000
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`))
// 'profile-start' and 'profile-stop' (bench/profile.ts): a CPU profile of what happens in between,
// so start-up and warm-up stay out of it; the profile goes back as the reply.
let inspector: Session | undefined
const post = (method: string, params?: object) =>
  new Promise<any>((resolve, reject) => inspector!.post(method, params, (error, result) => (error ? reject(error) : resolve(result))))
process.on('message', async (message) => {
  if (message === 'cpu') process.send!(process.cpuUsage())
  // 'memory' (bench/memory.bench.ts, with INSTANCE_FLAGS=--expose-gc): the process's memory after a full collection.
  if (message === 'memory') {
    ;(globalThis as { gc?: () => void }).gc?.()
    process.send!(process.memoryUsage())
  }
  if (message === 'profile-start') {
    inspector = new Session()
    inspector.connect()
    await post('Profiler.enable')
    await post('Profiler.setSamplingInterval', { interval: 250 })
    await post('Profiler.start')
    process.send!('profiling')
  }
  if (message === 'profile-stop') process.send!({ profile: (await post('Profiler.stop')).profile })
  // 'alloc-start' and 'alloc-stop': V8's sampling heap profile of what is allocated in between, collected or not.
  if (message === 'alloc-start') {
    inspector = new Session()
    inspector.connect()
    await post('HeapProfiler.enable')
    await post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
    process.send!('allocating')
  }
  if (message === 'alloc-stop') process.send!({ profile: (await post('HeapProfiler.stopSampling')).profile })
  if (message === 'exit') {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  }
})
