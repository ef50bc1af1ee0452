/**
 * One app process for the benches that measure a server from outside (`startInstance` in
 * workload.ts): the chat handler, or the TanStack peer, over HTTP on a free port. Prints its
 * port, then serves until killed; answers the message 'cpu' with its `process.cpuUsage()`.
 *
 * SERVE=toolgate (memory store) | toolgate-redis (threads in the Redis at REDIS_URL) | tanstack
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { tanstackHandler } from './tanstackPeer.ts'
import { weather, weatherModel } from './workload.ts'

async function handler(): Promise<(request: Request) => Promise<Response>> {
  switch (process.env.SERVE) {
    case 'toolgate':
      return createChatHandler({ model: weatherModel, tools: [weather] })
    case 'toolgate-redis': {
      const { createClient } = await import('redis')
      const { redisStore } = await import('@toolgate/ai/server/redis')
      const client = await createClient({ url: process.env.REDIS_URL }).connect()
      return createChatHandler({ model: weatherModel, tools: [weather], store: redisStore({ client, prefix: 'instances:' }) })
    }
    case 'tanstack': {
      const answer = tanstackHandler(weather)
      return async (request) => answer(((await request.json()) as { message: string }).message)
    }
    default:
      throw new Error(`SERVE must be toolgate, toolgate-redis or tanstack, not ${process.env.SERVE}`)
  }
}

const server = createServer(toNodeHandler(await handler()))
server.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`))
process.on('message', (message) => {
  if (message === 'cpu') process.send!(process.cpuUsage())
})
