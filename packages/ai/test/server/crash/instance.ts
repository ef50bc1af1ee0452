// One chat server process on a shared Redis, for the kill tests: started by crash.test.ts as a
// child process, told what to do by its environment, killed with SIGKILL mid-run.
//   REDIS_URL, PREFIX   the shared store
//   CALLS_FILE          every tool call appends `<pid> start|end <toolName> <toolCallId>` here
//   HOLD=1              tools never finish here (the process is killed while they run)
//   LEASE_MS            runLeaseMs
import { appendFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { createClient } from 'redis'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler, scriptedModel, toNodeHandler } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'

const env = (name: string) => {
  const value = process.env[name]
  if (!value) throw new Error(`crash instance: ${name} is not set`)
  return value
}
const leaseMs = Number(env('LEASE_MS'))
const hold = process.env.HOLD === '1'

function record(what: string, toolName: string, toolCallId: string) {
  appendFileSync(env('CALLS_FILE'), `${process.pid} ${what} ${toolName} ${toolCallId}\n`)
}

/** Runs like a real side effect: recorded when it starts and when it ends; never ends on a held instance. */
async function sideEffect(toolName: string, toolCallId: string, signal: AbortSignal): Promise<void> {
  record('start', toolName, toolCallId)
  if (hold) await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
  record('end', toolName, toolCallId)
}

const transfer = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money',
  inputSchema: v.object({ to: v.string(), amount: v.number() }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: true,
}).server(async ({ to }, { toolCallId, signal }) => {
  await sideEffect('transfer_money', toolCallId, signal)
  return { receipt: `paid ${to}` }
})

const book = toolDefinition({
  name: 'book_room',
  description: 'Books a room, keyed by the call id',
  inputSchema: v.object({ room: v.string() }),
  outputSchema: v.object({ booking: v.string() }),
  needsApproval: true,
  idempotent: true,
}).server(async ({ room }, { toolCallId, signal }) => {
  await sideEffect('book_room', toolCallId, signal)
  return { booking: `${room}@${toolCallId}` }
})

const model = scriptedModel(
  [
    { when: /pay (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[1], amount: 500 } }), then: ([r]) => `transfer: ${r.status}` },
    { when: /book (\w+)/i, call: (m) => ({ tool: 'book_room', input: { room: m[1] } }), then: ([r]) => `booking: ${r.status}` },
    { when: /story/i, reply: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ') },
    { when: /hello/i, reply: 'hi' },
  ],
  { delayMs: 20 },
)

const client = createClient({ url: env('REDIS_URL') })
client.on('error', (error) => console.error('crash instance: redis', error.message))
await client.connect()
const handler = createChatHandler({
  model,
  tools: [transfer, book],
  store: redisStore({ client, prefix: env('PREFIX') }),
  limits: { runLeaseMs: leaseMs, toolTimeoutMs: Math.floor(leaseMs * 0.9) },
})
const server = createServer(toNodeHandler(handler))
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`))
process.on('SIGTERM', () => {
  server.closeAllConnections()
  server.close()
  void client.quit().finally(() => process.exit(0))
})
