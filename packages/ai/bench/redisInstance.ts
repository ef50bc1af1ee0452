/**
 * One app instance for stores.bench.ts: the chat handler over HTTP on a free port, threads in the
 * Redis at REDIS_URL. Prints its port, then serves until killed.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClient } from 'redis'
import { createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { redisStore } from '@toolgate/ai/server/redis'
import { weather, weatherModel } from './workload.ts'


const client = await createClient({ url: process.env.REDIS_URL }).connect()
const server = createServer(toNodeHandler(createChatHandler({ model: weatherModel, tools: [weather], store: redisStore({ client, prefix: 'instances:' }) })))
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`))
