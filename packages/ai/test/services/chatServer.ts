/**
 * A chat server in its own process, for the crash tests: the same handler a deployment runs, on a
 * shared Redis, with tools that record each start in a file so a test can count runs across
 * processes. Prints `listening <port>` once it serves.
 */
import { appendFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { createClient } from 'redis'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler, scriptedModel, toNodeHandler } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'

const toolLog = process.env.TOOL_LOG!
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
    await new Promise((resolve) => setTimeout(resolve, 1000))
    return { receipt: `r-${to}-${toolCallId}` }
  })
const tools = [transfer('transfer_money', false), transfer('idempotent_transfer', true)]
const story = Array.from({ length: 60 }, (_, i) => `part ${i}. `).join('')
const model = scriptedModel(
  [
    { when: 'story', reply: story },
    { when: 'pay', call: () => ({ tool: 'transfer_money', input: { to: 'Bob' } }), then: ([r]) => `${r.status}: ${r.content}` },
    { when: 'idem', call: () => ({ tool: 'idempotent_transfer', input: { to: 'Bob' } }), then: ([r]) => `${r.status}: ${r.content}` },
  ],
  { tools, delayMs: 20 },
)

const client = createClient({ url: process.env.REDIS_URL })
await client.connect()
// Readers on one process are woken by the other's writes through pub/sub, as in a deployment.
const subscriber = client.duplicate()
await subscriber.connect()
const store = redisStore({ client, subscriber, prefix: process.env.PREFIX ?? 'crash:' })
const handler = createChatHandler({ model, tools, store, limits: { runLeaseMs: 1500, toolTimeoutMs: 1400 } })
const server = createServer(toNodeHandler(handler))
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`))
