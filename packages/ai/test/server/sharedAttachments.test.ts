import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import pg from 'pg'
import * as v from 'valibot'
import { toolDefinition, toolResult } from '@toolgate/ai'
import { memoryAttachmentStore, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { redisStore } from '@toolgate/ai/server/redis'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { startRedis, type RedisServer } from '../services/redis.ts'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'
import { closeAll, startServer } from './helpers/server.ts'

// Two instances on one shared store: a file a tool made through A is served by B, since the
// handler keeps files in the thread store's own attachments unless told otherwise.

const BYTES = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) % 256)
const chart = toolDefinition({ name: 'render_chart', description: 'Draws a chart', inputSchema: v.object({}) }).server(() =>
  toolResult({ output: { drawn: true }, content: [{ type: 'file', mediaType: 'application/octet-stream', data: BYTES, filename: 'chart.bin' }] }),
)
const model = scriptedModel([{ when: /chart/, call: () => ({ tool: 'render_chart', input: {} }), then: () => 'Here it is.' }], { tools: [chart] })

let redis: RedisServer
let postgres: PostgresServer
beforeAll(async () => {
  ;[redis, postgres] = await Promise.all([startRedis(), startPostgres()])
}, 60_000)
afterEach(closeAll)
afterAll(async () => {
  await Promise.all([redis?.stop(), postgres?.stop()])
})

async function madeOnAServedByB(storeOfInstance: () => ThreadStore) {
  const a = await startServer({ model, tools: [chart], store: storeOfInstance() })
  const b = await startServer({ model, tools: [chart], store: storeOfInstance() })
  const turn = await a.send('draw a chart')
  const id = turn.results[0]!.metadata.attachments![0]!.id!
  const served = await fetch(`${b.url}?threadId=${turn.threadId}&attachmentId=${id}`)
  expect(served.status).toBe(200)
  expect(served.headers.get('content-type')).toBe('application/octet-stream')
  expect(new Uint8Array(await served.arrayBuffer())).toEqual(BYTES)
  // Another thread cannot read it through its own id.
  const other = await b.send('draw a chart')
  expect((await fetch(`${b.url}?threadId=${other.threadId}&attachmentId=${id}`)).status).toBe(404)
}

describe('a file a tool made on instance A', () => {
  it('is served by instance B on one Redis', async () => {
    const clients = [await createClient({ url: redis.url }).connect(), await createClient({ url: redis.url }).connect()]
    try {
      let next = 0
      await madeOnAServedByB(() => redisStore({ client: clients[next++]!, prefix: 'files:' }))
    } finally {
      await Promise.all(clients.map((client) => client.quit()))
    }
  })

  it('is served by instance B on one PostgreSQL', async () => {
    const pools = [new pg.Pool({ connectionString: postgres.connectionString }), new pg.Pool({ connectionString: postgres.connectionString })]
    try {
      await postgresStore({ pool: pools[0]!, table: 'files' }).ensureSchema()
      let next = 0
      await madeOnAServedByB(() => postgresStore({ pool: pools[next++]!, table: 'files' }))
    } finally {
      await Promise.all(pools.map((pool) => pool.end()))
    }
  })
})

describe('a memory attachment store beside a shared thread store', () => {
  it('is warned about once, on Node’s warning channel', async () => {
    const client = await createClient({ url: redis.url }).connect()
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const store = redisStore({ client, prefix: 'warn:' })
      await startServer({ model, tools: [chart], store, attachments: memoryAttachmentStore() })
      await startServer({ model, tools: [chart], store, attachments: memoryAttachmentStore() })
      await startServer({ model, tools: [chart], store }) // its own: nothing to warn about
      await new Promise((resolve) => setImmediate(resolve)) // warnings are emitted on the next tick
      const ours = warnings.filter((warning) => (warning as { code?: string }).code === 'TOOLGATE_LOCAL_ATTACHMENTS')
      expect(ours).toHaveLength(1)
      expect(ours[0]!.message).toMatch(/served only by the instance that made it/)
    } finally {
      process.off('warning', onWarning)
      await client.quit()
    }
  })
})
