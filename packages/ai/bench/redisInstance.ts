/**
 * One app instance for stores.bench.ts: the chat handler over HTTP on a free port, threads in the
 * Redis at REDIS_URL. Prints its port, then serves until killed.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { createClient } from 'redis'
import { toolDefinition } from '@toolgate/ai'
import { createChatHandler, scriptedModel, toNodeHandler } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'

const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ tempC: v.number() }),
}).server(({ city }) => ({ tempC: city.length }))
const model = scriptedModel([
  { when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]) => (r.tool === 'get_weather' && r.ok ? `It is ${r.output.tempC}°C.` : r.content) },
], { tools: [weather] })

const client = await createClient({ url: process.env.REDIS_URL }).connect()
const server = createServer(toNodeHandler(createChatHandler({ model, tools: [weather], store: redisStore({ client, prefix: 'instances:' }) })))
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`))
