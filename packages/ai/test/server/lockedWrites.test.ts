import * as v from 'valibot'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { toolDefinition } from '@toolgate/ai'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { type ThreadMessage } from '@toolgate/ai/protocol'
import { postgresStore } from '@toolgate/ai/server/postgres'
import { startPostgres, type PostgresServer } from '../services/postgres.ts'
import { closeAll, startServer } from './helpers/server.ts'

// Issue 26, item 1 on a real PostgreSQL: the store's statements have a short `statement_timeout`
// and another session holds the thread's row lock while the tool runs (and a little after), so the
// write that stores the executed call times out. The tool must not run again on the next message,
// and the history must hold the call once, with its result.

let postgres: PostgresServer
const pools: pg.Pool[] = []
beforeAll(async () => {
  postgres = await startPostgres()
}, 60_000)
afterEach(async () => {
  await closeAll()
  await Promise.all(pools.splice(0).map((pool) => pool.end()))
})
afterAll(() => postgres?.stop())

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const model = scriptedModel([
  { when: /pay (\w+)/i, call: (m) => ({ tool: 'pay', input: { to: m[1] } }), then: () => 'paid' },
  { when: /.*/, reply: 'ok' },
])

describe('a tool whose result write times out on a locked row (PostgreSQL)', () => {
  it('runs once, and the history holds the call once with its result', async () => {
    const table = 'locked'
    const pool = new pg.Pool({ connectionString: postgres.connectionString, options: '-c statement_timeout=1000' })
    const locker = new pg.Pool({ connectionString: postgres.connectionString })
    pools.push(pool, locker)
    const store = postgresStore({ pool, table, onError: () => {} })
    await store.ensureSchema()

    const paid: string[] = []
    const held: Promise<void>[] = []
    let threadId = ''
    const pay = toolDefinition({ name: 'pay', description: 'Pays someone; not idempotent', inputSchema: v.object({ to: v.string() }), outputSchema: v.object({ receipt: v.string() }), needsApproval: true }).server(
      async ({ to }) => {
        paid.push(to)
        // Another session takes the thread's row lock while the tool runs, and keeps it for a while
        // after: every write of the run in that time outlasts the statement timeout.
        const client = await locker.connect()
        await client.query('BEGIN')
        await client.query(`SELECT 1 FROM ${table}_threads WHERE id = $1 FOR UPDATE`, [threadId])
        held.push(pause(3000).then(async () => {
          await client.query('COMMIT')
          client.release()
        }))
        await pause(50)
        return { receipt: `r-${to}` }
      },
    )
    const server = await startServer({ model, tools: [pay], store, onError: () => {} })
    const first = await server.send('pay Ann')
    expect(first.interrupts).toHaveLength(1)
    threadId = first.threadId
    const approved = await server.resume(first.threadId, [{ interruptId: first.interrupts[0]!.id, approved: true }])
    expect(paid).toEqual(['Ann'])
    await Promise.all(held)
    // The run could not store the result in time; whatever it told its reader, the thread comes back idle.
    expect(approved.types.at(-1)).toMatch(/RUN_FINISHED|RUN_ERROR/)
    for (let i = 0; i < 200 && (await server.get(first.threadId)).status !== 'idle'; i++) await pause(25)

    const next = await server.send('hello', first.threadId)
    expect(next.finished).toBeDefined()
    expect(paid).toEqual(['Ann'])

    const messages: ThreadMessage[] = [...(await store.messages(first.threadId, 0, (await store.head(first.threadId))!.messageCount))]
    const calls = messages.flatMap((message) => (message.role === 'assistant' ? message.toolCalls.map((call) => call.id) : []))
    const results = messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : []))
    expect(calls).toHaveLength(1)
    expect(results).toEqual(calls)
    expect((await store.head(first.threadId))?.step).toBeUndefined()
  }, 30_000)
})
