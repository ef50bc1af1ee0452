/**
 * A chat server in its own process, for the crash, outage and stress runs: the same handler a
 * deployment runs, its store set up exactly as the README shows, on a shared Redis (`REDIS_URL`)
 * or PostgreSQL (`DATABASE_URL`), with tools that record each start in a file so a test can count
 * runs across processes. `FAIL_COMMIT_EVERY=N` makes every Nth store write fail (an injected
 * blip). Prints `listening <port>` once it serves, and `store-error <message>` for each error
 * the store reports.
 */
import { appendFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import pg from 'pg'
import { createClient } from 'redis'
import { toolDefinition, toolResult } from '@toolgate/ai'
import { agentTool, createChatHandler, StoreError, toNodeHandler, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'

const toolLog = process.env.TOOL_LOG!
const toolMs = Number(process.env.TOOL_MS ?? 1000)
const transfer = (name: string, idempotent: boolean) =>
  toolDefinition({
    name,
    description: 'Sends money',
    inputSchema: v.object({ to: v.string() }),
    outputSchema: v.object({ receipt: v.string() }),
    needsApproval: true,
    idempotent,
  }).server(async ({ to }, { toolCallId }) => {
    appendFileSync(toolLog, `${process.pid} ${toolCallId}\n`)
    await new Promise((resolve) => setTimeout(resolve, toolMs))
    return { receipt: `r-${to}-${toolCallId}` }
  })
const chart = toolDefinition({ name: 'render_chart', description: 'Draws a chart', inputSchema: v.object({}) }).server(() =>
  toolResult({ content: [{ type: 'file', mediaType: 'application/octet-stream', data: Uint8Array.from({ length: 256 }, (_, i) => i), filename: 'bytes.bin' }] }),
)
// A subagent whose tool needs approval and takes a while: killed while it runs, its call must not run again.
const research = agentTool({
  name: 'research',
  description: 'Researches and pays',
  model: scriptedModel([{ when: /pay (\w+)/, call: (m) => ({ tool: 'transfer_money', input: { to: m[1] } }), then: ([r]) => `inner ${r.status}` }]),
  tools: [transfer('transfer_money', false)],
})
const tools = [transfer('transfer_money', false), transfer('idempotent_transfer', true), chart, research]
const story = Array.from({ length: 60 }, (_, i) => `part ${i}. `).join('')
const model = scriptedModel(
  [
    { when: 'story', reply: story },
    { when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob' } }), then: ([r]) => `${r.status}: ${r.content}` },
    { when: 'idem', call: () => ({ tool: 'idempotent_transfer', input: { to: 'Bob' } }), then: ([r]) => `${r.status}: ${r.content}` },
    { when: 'chart', call: () => ({ tool: 'render_chart', input: {} }), then: () => 'drawn' },
    { when: 'delegate', call: () => ({ tool: 'research', input: { task: 'pay Bob' } }), then: ([r]) => `${r.status}: ${r.content}` },
  ],
  { tools, delayMs: Number(process.env.MODEL_DELAY_MS ?? 20) },
)

const onError = (error: StoreError) => console.log(`store-error ${error.message}`)
const prefix = process.env.PREFIX ?? 'crash:'
let store: ThreadStore
if (process.env.DATABASE_URL) {
  // As the README shows: a pool, and a function that connects the LISTEN connection (again after a restart).
  const listener = async () => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await client.connect()
    return client
  }
  const postgres = postgresStore({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }), listener, table: prefix.replace(/\W/g, ''), onError, timeoutMs: 3000 })
  await postgres.ensureSchema()
  store = postgres
} else {
  const client = await createClient({ url: process.env.REDIS_URL }).connect()
  // Readers on one process are woken by the other's writes through pub/sub, as in a deployment.
  const subscriber = await client.duplicate().connect()
  store = redisStore({ client, subscriber, prefix, onError, timeoutMs: 3000 })
}
const every = Number(process.env.FAIL_COMMIT_EVERY ?? 0)
if (every > 0) store = failingEvery(store, every)

const handler = createChatHandler({ model, tools, store, limits: { runLeaseMs: 1500, toolTimeoutMs: 1400 }, onError: () => {} })
const server = createServer(toNodeHandler(handler))
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`))

/** The store, but every `every`th commit fails as a blip would: nothing written, an error thrown. */
function failingEvery(inner: ThreadStore, every: number): ThreadStore {
  let commits = 0
  return {
    ...inner,
    head: (threadId) => inner.head(threadId),
    messages: (threadId, from, to) => inner.messages(threadId, from, to),
    commit: (commit) => (++commits % every === 0 ? Promise.reject(new StoreError('injected', 'commit', new Error('injected failure'))) : inner.commit(commit)),
  }
}
