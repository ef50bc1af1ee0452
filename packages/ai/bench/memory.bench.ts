/**
 * Cost as work grows (issue 41): what the process holds for each thing it waits on, measured as
 * the heap after a full collection, before and after.
 * - Parked approvals: 10,000 turns each paused on an approval (then 5,000 more). A thread waiting
 *   for a human must hold nothing in the process: on a shared store (Redis) the slope past the
 *   thread cache's bound (thread/threadCache.ts, 1,000 threads) is the figure; on the memory store
 *   the thread itself lives in the process, shown beside it.
 * - Watchers: 1,000 `GET ?threadId&watch=<version>` long polls held at once by an app process
 *   (bench/instance.ts), on connections opened beforehand, so a watch's own cost shows apart from its
 *   connection's (both printed). The long-poll limit (`limits.maxWatchers`) is set from this figure.
 * - Open streams: 1,000 runs streaming at once (a model that answered one delta and thinks).
 *
 * Run: npm run build, then tsx bench/memory.bench.ts
 */
import { Agent, request as httpRequest, type ClientRequest } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler, memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { startRedis } from '../test/services/redis.ts'
import { postJson, startInstance, type Instance } from './workload.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const heap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

console.log(`memory.bench: what the process holds per thing it waits on, heap after a full collection (node ${process.version})`)

// Parked approvals, in-process (the Fetch handler, no HTTP: the connections are not the approvals').
const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: true,
}).server(({ to }) => ({ receipt: `r-${to}` }))
const model = scriptedModel([{ when: /send/i, call: () => ({ tool: 'transfer_money', input: { to: 'Bob', amount: 500 } }), then: ([r]) => `Done: ${r!.content}` }], { tools: [transfer] })

async function park(store: ThreadStore, counts: readonly number[]): Promise<number[]> {
  const handler = createChatHandler({ model, tools: [transfer], store })
  const turn = async () => {
    const response = await handler(new Request('http://bench.local/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"send money"}' }))
    const text = await response.text()
    if (!text.includes('"interrupt"')) throw new Error(`the turn did not pause: ${text.slice(-300)}`)
  }
  for (let i = 0; i < 50; i++) await turn() // warm
  const heaps = [heap()]
  for (const count of counts) {
    for (let i = 0; i < count; i += 8) await Promise.all(Array.from({ length: Math.min(8, count - i) }, turn))
    await new Promise((resolve) => setTimeout(resolve, 100)) // the last runs' log writes land
    heaps.push(heap())
  }
  return heaps
}

const PARKED = process.env.MEMORY_QUICK ? [200, 100] : [10_000, 5_000]
const stores: { name: string; make: () => Promise<{ store: ThreadStore; close: () => Promise<unknown> }> }[] = [
  { name: 'memory', make: async () => ({ store: memoryStore(), close: async () => {} }) },
]
try {
  const redis = await startRedis()
  const { createClient } = await import('redis')
  const { redisStore } = await import('@toolgate/ai/server/redis')
  const client = await createClient({ url: redis.url }).connect()
  stores.push({ name: 'redis', make: async () => ({ store: redisStore({ client, prefix: 'memory-bench:' }), close: async () => (await client.quit(), await redis.stop()) }) })
} catch (error) {
  console.log(`  (no Redis: ${(error as Error).message})`)
}
console.log(`\n  parked approvals (turns paused on an approval; ${PARKED[0]!.toLocaleString('en-US')}, then ${PARKED[1]!.toLocaleString('en-US')} more):`)
for (const { name, make } of stores) {
  const { store, close } = await make()
  try {
    const [start, first, second] = await park(store, PARKED)
    const perFirst = (first! - start!) / PARKED[0]!
    const perMore = (second! - first!) / PARKED[1]!
    const note = name === 'memory' ? 'the memory store keeps each thread in the process, at most maxThreads (10,000 by default; past it the oldest go)' : 'the thread lives in Redis; what stays is the thread cache, bounded at 1,000 threads'
    console.log(`  ${name.padEnd(7)} first ${PARKED[0]!.toLocaleString('en-US')}: ${kb(perFirst)} each; the next ${PARKED[1]!.toLocaleString('en-US')}: ${kb(perMore)} each (${note})`)
  } finally {
    await close()
  }
}

// Watchers and open streams: in an app process of their own, so the load generator's sockets are not counted.
const HELD = 1_000
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })
const memoryOf = async (instance: Instance) => {
  const usage = (await instance.ask('memory')) as NodeJS.MemoryUsage
  return usage.heapUsed + usage.external + usage.arrayBuffers
}

/** Opens `count` connections to the instance and leaves them idle, kept alive (each answers one hello turn). */
async function openConnections(instance: Instance, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<void>((resolve, reject) => {
        const request = httpRequest(instance.url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (response) => {
          response.resume()
          response.on('end', resolve)
        })
        request.on('error', reject)
        request.end('{"message":"hi"}')
      }),
    ),
  )
}

/** Sends `count` requests made by `start` on the kept connections and resolves once each has its response's headers (and, `firstData`, its first bytes): they are held open. */
function hold(count: number, start: () => ClientRequest, firstData: boolean): Promise<ClientRequest[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      new Promise<ClientRequest>((resolve, reject) => {
        const request = start()
        request.on('error', reject)
        request.on('response', (response) => {
          if (!firstData) return resolve(request)
          response.once('data', () => resolve(request))
        })
        // A watch answers nothing until the thread changes: held once the server has read it.
        if (!firstData) request.on('finish', () => setTimeout(() => resolve(request), 50))
      }),
    ),
  )
}

async function watchers(): Promise<{ withConnection: number; watchAlone: number }> {
  const instance = await startInstance('toolgate', {}, { workload: 'hello' })
  try {
    const { text } = await postJson(instance.url, { message: 'hi' })
    const threadId = /"threadId":"([^"]+)"/.exec(text)![1]!
    // A watch from version 0 answers at once with the thread's version.
    const { text: current } = await new Promise<{ text: string }>((resolve, reject) => {
      httpRequest(`${instance.url}?threadId=${threadId}&watch=0`, { agent }, (response) => {
        let body = ''
        response.on('data', (chunk) => (body += chunk))
        response.on('end', () => resolve({ text: body }))
      })
        .on('error', reject)
        .end()
    })
    const version = /"version":(\d+)/.exec(current)![1]
    const bare = await memoryOf(instance)
    await openConnections(instance, HELD)
    const connected = await memoryOf(instance)
    const held = await hold(HELD, () => httpRequest(`${instance.url}?threadId=${threadId}&watch=${version}`, { agent }).end() as ClientRequest, false)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const watching = await memoryOf(instance)
    for (const request of held) request.destroy()
    return { withConnection: (watching - bare) / HELD, watchAlone: (watching - connected) / HELD }
  } finally {
    instance.stop()
  }
}

async function openStreams(): Promise<number> {
  const instance = await startInstance('toolgate', {}, { workload: 'hold' })
  try {
    const bare = await memoryOf(instance)
    const post = () => {
      const request = httpRequest(instance.url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } })
      request.end('{"message":"think"}')
      return request
    }
    const held = await hold(HELD, post, true)
    const streaming = await memoryOf(instance)
    for (const request of held) request.destroy()
    return (streaming - bare) / HELD
  } finally {
    instance.stop()
  }
}

const flags = process.env.INSTANCE_FLAGS
process.env.INSTANCE_FLAGS = [flags, '--expose-gc'].filter(Boolean).join(' ')
const watch = await watchers()
console.log(`\n  ${HELD.toLocaleString('en-US')} watchers (GET ?watch long polls) held by an app process: ${kb(watch.withConnection)} each with its connection, ${kb(watch.watchAlone)} for the watch on a connection already open`)
const streams = await openStreams()
console.log(`  ${HELD.toLocaleString('en-US')} open streams (runs streaming, a model thinking): ${kb(streams)} each with its connection`)
agent.destroy()
process.env.INSTANCE_FLAGS = flags
