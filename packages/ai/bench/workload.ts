/**
 * What the throughput benches share: the one server tool every turn runs (pure and fast, so the
 * runtime is what is measured), the scripted model of a weather turn, the measuring loop, and the
 * app processes (bench/instance.ts) and light HTTP client of the benches that load a server from outside.
 */
import { spawn } from 'node:child_process'
import { Agent, request as httpRequest } from 'node:http'
import { fileURLToPath } from 'node:url'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { type ChatModel, type ModelChunk, type ModelRequest } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'

export const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ tempC: v.number() }),
  // READ_ONLY=1: declared as it is, read-only (its call starts before its running mark is stored; the step writes none).
  readOnly: process.env.READ_ONLY === '1',
}).server(({ city }) => ({ tempC: city.length }))

/** "weather in X": one call of `weather`, then an answer from its output (two model steps). */
export const weatherModel = scriptedModel(
  [{ when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]) => (r.tool === 'get_weather' && r.ok ? `It is ${r.output.tempC}°C.` : r.content) }],
  { tools: [weather] },
)

/** Text deltas of the streaming turn, and tool-argument deltas of the streaming call. */
export const STREAMED_TEXT_DELTAS = 1000
export const STREAMED_ARG_DELTAS = 200

/** Waits one turn of the event loop, as a model reading a network stream gets one delta per read. */
export const nextLoopTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** The words of the streamed answer: `count` short deltas, as a provider streams tokens. */
export const textDeltas = (count: number) => Array.from({ length: count }, (_, i) => `w${i % 10} `)

/** The streamed call's arguments: `{"city":"…"}` in `count` deltas. */
export const argDeltas = (count: number) => ['{"city":"', ...Array.from({ length: count - 2 }, () => 'ab'), '"}']

const lastIsTool = (request: ModelRequest) => request.messages.at(-1)?.role === 'tool'

/** A model that streams its answer as `STREAMED_TEXT_DELTAS` deltas, one per turn of the event loop. */
export const streamingTextModel: ChatModel = {
  async *stream(): AsyncGenerator<ModelChunk> {
    for (const delta of textDeltas(STREAMED_TEXT_DELTAS)) {
      await nextLoopTurn()
      yield { type: 'text-delta', delta }
    }
    yield { type: 'finish', reason: 'stop' }
  },
}

/** A model that calls `get_weather` with arguments in `STREAMED_ARG_DELTAS` deltas, one per turn of the event loop, then answers. */
export const streamingArgsModel: ChatModel = {
  async *stream(request): AsyncGenerator<ModelChunk> {
    if (lastIsTool(request)) {
      yield { type: 'text-delta', delta: 'Done.' }
      yield { type: 'finish', reason: 'stop' }
      return
    }
    const toolCallId = 'call_1'
    yield { type: 'tool-call-start', toolCallId, toolName: 'get_weather' }
    for (const delta of argDeltas(STREAMED_ARG_DELTAS)) {
      await nextLoopTurn()
      yield { type: 'tool-call-delta', toolCallId, delta }
    }
    yield { type: 'tool-call-end', toolCallId }
    yield { type: 'finish', reason: 'tool_calls' }
  },
}

/** A model that answers at once with one text delta: a turn that does nothing, so what is left is what any request costs. */
export const helloModel: ChatModel = {
  async *stream(): AsyncGenerator<ModelChunk> {
    yield { type: 'text-delta', delta: 'Hello.' }
    yield { type: 'finish', reason: 'stop' }
  },
}

/** How long `holdModel` keeps its stream open after its first delta (ms): longer than the memory bench's measurement. */
export const HOLD_MS = 60_000

/** A model that answers one delta, then holds its stream open (a model thinking): an open stream that costs nothing but being open. */
export const holdModel: ChatModel = {
  async *stream(request): AsyncGenerator<ModelChunk> {
    yield { type: 'text-delta', delta: 'Hold on.' }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, HOLD_MS)
      request.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
    })
    yield { type: 'finish', reason: 'stop' }
  },
}

/** What a turn does: one quick server tool, a 1,000-delta answer, a call whose arguments stream in 200 deltas, one text delta (hello), or one delta and a long wait (hold). */
export type Workload = 'weather' | 'text' | 'args' | 'hello' | 'hold'

export const modelOf: Record<Workload, ChatModel> = { weather: weatherModel, text: streamingTextModel, args: streamingArgsModel, hello: helloModel, hold: holdModel }

/** A turn short enough to run by the thousand (weather, hello), not a streaming one. */
export const isShortTurn = (workload: Workload) => workload === 'weather' || workload === 'hello'

export interface MeasureLimits {
  readonly warmup: number
  readonly maxTurns: number
  readonly budgetMs: number
}

/** Runs `turn` from `concurrency` workers after a warm-up, until `maxTurns` or `budgetMs`: turns done, time, turns per second. */
export async function measure(turn: () => Promise<unknown>, concurrency: number, limits: MeasureLimits) {
  for (let i = 0; i < limits.warmup; i++) await turn()
  let done = 0
  const start = performance.now()
  const worker = async () => {
    while (done < limits.maxTurns && performance.now() - start < limits.budgetMs) {
      await turn()
      done++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const ms = performance.now() - start
  return { done, ms, perSecond: (done / ms) * 1000 }
}

/** A running app process (bench/instance.ts): its URL, the CPU time it used so far, and how to stop it. */
export interface Instance {
  readonly url: string
  /** User plus system CPU time of the process so far, in milliseconds. */
  cpuMs(): Promise<number>
  stop(): void
  /** Sends the process a message (bench/instance.ts says which it answers); its reply. */
  ask(message: string): Promise<unknown>
  /** The process's id (bench/turnCounts.ts traces its system calls). */
  readonly pid: number
}

/**
 * What an instance serves: Toolgate's chat handler (memory store, or Redis), TanStack AI's `chat()`,
 * the AI SDK 7's `streamText` + `pipeUIMessageStreamToResponse` (bench/aiSdkPeer.ts), and two floors:
 * `needed` does the turn's needed work and a memory thread's three commits in plain code
 * (bench/neededFloor.ts), `bare` answers with the frames a Toolgate turn wrote, in as many writes,
 * from `node:http` alone (what the machine needs to parse the request and write the frames).
 * `aimock` serves OpenAI Chat Completions streaming for the weather turn (the model over HTTP:
 * MODEL_URL points Toolgate and TanStack at it).
 */
export type Serve = 'toolgate' | 'toolgate-redis' | 'tanstack' | 'ai-sdk' | 'needed' | 'bare' | 'aimock'

/**
 * Starts bench/instance.ts in its own process serving `serve`: the server under test gets its own
 * core and event loop, and the load generator's cost (this process) is not counted against it.
 */
export async function startInstance(
  serve: Serve,
  env: Record<string, string> = {},
  options: { workload?: Workload } = {},
): Promise<Instance> {
  const child = spawn(process.execPath, [...(process.env.INSTANCE_FLAGS ? process.env.INSTANCE_FLAGS.split(' ') : []), '--import', 'tsx', fileURLToPath(new URL('instance.ts', import.meta.url))], {
    env: { ...process.env, ...env, SERVE: serve, WORKLOAD: options.workload ?? 'weather' },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  })
  const port = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${serve} instance exited with ${code}`)))
    child.stdout!.on('data', (data: Buffer) => {
      const found = /port (\d+)/.exec(String(data))?.[1]
      if (found) resolve(found)
    })
  })
  return {
    url: `http://127.0.0.1:${port}/`,
    cpuMs: () =>
      new Promise((resolve) => {
        child.once('message', (usage: NodeJS.CpuUsage) => resolve((usage.user + usage.system) / 1000))
        child.send('cpu')
      }),
    stop: () => {
      child.removeAllListeners('exit')
      child.kill()
    },
    pid: child.pid!,
    ask: (message) =>
      new Promise((resolve) => {
        child.once('message', resolve)
        child.send(message)
      }),
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/** POSTs `body` as JSON with node:http (a lighter load generator than fetch); the status and the whole response text. */
export function postJson(url: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body)
    const request = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end(payload)
  })
}
