import { afterEach, describe, expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { locationDef, transferDef } from './fixtures.ts'
import { closeAll, errorOf, startServer } from './helpers/server.ts'

afterEach(closeAll)

const model = scriptedModel([
  { when: /send (\d+) to (\w+)/i, call: (m) => ({ tool: 'transfer_money', input: { to: m[2], amount: Number(m[1]) } }), then: ([r]) => r.content },
  {
    when: /two/i,
    call: () => [
      { tool: 'transfer_money', input: { to: 'Bob', amount: 200 } },
      { tool: 'get_location' },
    ],
    then: (results) => results.map((r) => r.content).join(' | '),
  },
  { when: 'hello', reply: 'hi' },
])

function setup() {
  const ran: unknown[] = []
  const tool = transferDef.server(async (input) => (ran.push(input), { receipt: 'ok' }))
  return { ran, start: () => startServer({ model, tools: [tool, locationDef] }) }
}

describe('refused answers change nothing', () => {
  it('refuses a forged interrupt id with 404', async () => {
    const { ran, start } = setup()
    const server = await start()
    const turn = await server.send('send 500 to Bob')
    const before = await server.get(turn.threadId)

    const response = await server.post({ threadId: turn.threadId, resume: [{ interruptId: 'int_forged0000000000000000', approved: true }] })
    expect(await errorOf(response)).toEqual({
      status: 404,
      error: { code: 'INTERRUPT_NOT_FOUND', message: expect.stringContaining('int_forged'), path: 'resume[0].interruptId' },
    })
    expect(await server.get(turn.threadId)).toEqual(before)
    expect(ran).toEqual([])
  })

  it('refuses a grant lifetime past a year (or not a safe integer) with 400 naming the field, and takes one of a year (issue 36)', async () => {
    const { ran, start } = setup()
    const server = await start()
    const turn = await server.send('send 500 to Bob')
    const before = await server.get(turn.threadId)
    for (const ttlMs of [9007199254740991, 365 * 24 * 3600_000 + 1, 1e300, 0.5]) {
      const response = await server.post({ threadId: turn.threadId, resume: [{ interruptId: turn.interrupts[0]!.id, approved: true, grant: { ttlMs } }] })
      expect(await errorOf(response)).toEqual({ status: 400, error: { code: 'INVALID_REQUEST', message: expect.stringContaining('ttlMs'), path: 'resume[0].grant.ttlMs' } })
    }
    expect(await server.get(turn.threadId)).toEqual(before)
    expect(ran).toEqual([])
    const year = await server.resume(turn.threadId, [{ interruptId: turn.interrupts[0]!.id, approved: true, grant: { ttlMs: 365 * 24 * 3600_000 } }])
    expect(year.status).toBe(200)
    expect(ran).toEqual([{ to: 'Bob', amount: 500 }])
  })

  it('never echoes more than a short prefix of what it refuses: a 900 KB grant id, interrupt id or a 200 KB edited value (issue 36)', async () => {
    const { start } = setup()
    const server = await start()
    const turn = await server.send('send 500 to Bob')
    const huge = 'g'.repeat(900_000)
    const small = async (response: Response) => {
      const text = await response.text()
      return { status: response.status, code: (JSON.parse(text) as { error: { code: string } }).error.code, short: text.length < 1_500, echoed: text.includes('g'.repeat(64)), whole: text.includes('g'.repeat(1_500)) }
    }
    expect(await small(await server.post({ threadId: turn.threadId, revokeGrant: huge }))).toEqual({ status: 404, code: 'GRANT_NOT_FOUND', short: true, echoed: true, whole: false })
    expect(await small(await server.post({ threadId: turn.threadId, resume: [{ interruptId: huge, approved: true }] }))).toEqual({ status: 404, code: 'INTERRUPT_NOT_FOUND', short: true, echoed: true, whole: false })
    const edited = await server.post({ threadId: turn.threadId, resume: [{ interruptId: turn.interrupts[0]!.id, approved: true, editedArgs: { to: 'Bob', amount: huge.slice(0, 200_000) } }] })
    expect(await small(edited)).toMatchObject({ status: 422, code: 'INVALID_EDITED_ARGS', short: true, whole: false })
  })

  it("refuses an interrupt id of another thread", async () => {
    const { ran, start } = setup()
    const server = await start()
    const a = await server.send('send 500 to Bob')
    const b = await server.send('send 600 to Eve')
    const response = await server.post({ threadId: b.threadId, resume: [{ interruptId: a.interrupts[0]!.id, approved: true }] })
    expect((await errorOf(response)).error.code).toBe('INTERRUPT_NOT_FOUND')
    expect((await server.get(a.threadId)).interrupts).toHaveLength(1)
    expect((await server.get(b.threadId)).interrupts).toHaveLength(1)
    expect(ran).toEqual([])
  })

  it('refuses a replayed answer with 409 and applies it only once', async () => {
    const { ran, start } = setup()
    const server = await start()
    const turn = await server.send('send 500 to Bob')
    const answer = [{ interruptId: turn.interrupts[0]!.id, approved: true }]
    expect((await server.resume(turn.threadId, answer)).status).toBe(200)

    const replay = await server.post({ threadId: turn.threadId, resume: answer })
    expect(await errorOf(replay)).toMatchObject({ status: 409, error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })
    expect(ran).toHaveLength(1)
  })

  it('refuses a replayed partial answer while the batch waits', async () => {
    const { start } = setup()
    const server = await start()
    const turn = await server.send('two things')
    const answer = [{ interruptId: turn.interrupts[0]!.id, approved: true }]
    expect((await server.resume(turn.threadId, answer)).status).toBe(202)
    expect((await errorOf(await server.post({ threadId: turn.threadId, resume: answer }))).error.code).toBe('INTERRUPT_ALREADY_ANSWERED')
  })

  it('refuses a client result for a server tool, and an approval for a client tool, with 422', async () => {
    const { ran, start } = setup()
    const server = await start()
    const turn = await server.send('two things')
    const [approval, client] = turn.interrupts
    expect(approval!.reason).toBe('tool_approval')
    expect(client!.reason).toBe('client_tool')
    const before = await server.get(turn.threadId)

    const forgedResult = await server.post({ threadId: turn.threadId, resume: [{ interruptId: approval!.id, output: { receipt: 'fake' } }] })
    expect(await errorOf(forgedResult)).toEqual({
      status: 422,
      error: { code: 'ANSWER_MISMATCH', message: expect.stringContaining('send `approved`'), path: 'resume[0]' },
    })
    const approvedClient = await server.post({ threadId: turn.threadId, resume: [{ interruptId: client!.id, approved: true }] })
    expect((await errorOf(approvedClient)).error.code).toBe('ANSWER_MISMATCH')
    expect(await server.get(turn.threadId)).toEqual(before)
    expect(ran).toEqual([])
  })

  it('refuses a whole request when one of its answers is bad', async () => {
    const { start } = setup()
    const server = await start()
    const turn = await server.send('two things')
    const [approval, client] = turn.interrupts
    const response = await server.post({
      threadId: turn.threadId,
      resume: [
        { interruptId: approval!.id, approved: true },
        { interruptId: client!.id, approved: true },
      ],
    })
    expect(await errorOf(response)).toMatchObject({ status: 422, error: { path: 'resume[1]' } })
    expect((await server.get(turn.threadId)).interrupts).toHaveLength(2)
  })

  it('refuses answers for a thread with nothing pending, and unknown threads', async () => {
    const { start } = setup()
    const server = await start()
    const turn = await server.send('hello')
    const none = await server.post({ threadId: turn.threadId, resume: [{ interruptId: 'int_x', approved: true }] })
    expect((await errorOf(none)).error.code).toBe('INTERRUPT_NOT_FOUND')

    const unknown = await server.post({ threadId: 'thread_nope', message: 'hi' })
    expect(await errorOf(unknown)).toMatchObject({ status: 404, error: { code: 'THREAD_NOT_FOUND', path: 'threadId' } })
    expect((await errorOf(await fetch(`${server.url}?threadId=thread_nope`))).status).toBe(404)
  })
})

describe('authorize', () => {
  async function start(context?: (request: Request) => unknown) {
    const owners = new Map<string, string>()
    const seen: string[] = []
    const server = await startServer({
      model,
      context,
      tools: [transferDef.server(() => ({ receipt: 'ok' })), locationDef],
      authorize: (request, threadId, { action }) => {
        const user = request.headers.get('x-user')
        seen.push(action)
        if (!user) return false
        if (action === 'create') return owners.set(threadId, user), true
        return owners.get(threadId) === user
      },
    })
    return { server, seen }
  }
  const ada = { 'x-user': 'ada' }
  const bob = { 'x-user': 'bob' }

  it("stops one user from reading, answering or writing another user's thread", async () => {
    const { server, seen } = await start()
    const turn = await server.send('send 500 to Bob', undefined, ada)
    const interruptId = turn.interrupts[0]!.id

    const read = await fetch(`${server.url}?threadId=${turn.threadId}`, { headers: bob })
    expect(await errorOf(read)).toEqual({ status: 403, error: { code: 'FORBIDDEN', message: expect.any(String), path: 'threadId' } })
    const answer = await server.post({ threadId: turn.threadId, resume: [{ interruptId, approved: true }] }, bob)
    expect((await errorOf(answer)).status).toBe(403)
    const write = await server.post({ threadId: turn.threadId, message: 'hello' }, bob)
    expect((await errorOf(write)).status).toBe(403)

    expect((await server.get(turn.threadId, ada)).interrupts).toHaveLength(1)
    expect((await server.resume(turn.threadId, [{ interruptId, approved: true }], ada)).status).toBe(200)
    expect(seen).toEqual(['create', 'read', 'write', 'write', 'read', 'write'])
  })

  it('creates no thread for a request it refuses', async () => {
    const { server } = await start()
    const response = await server.post({ message: 'hello' })
    expect((await errorOf(response)).error.code).toBe('FORBIDDEN')
  })

  it("never resolves the app's context for a request it refuses", async () => {
    const contexts: string[] = []
    const { server } = await start((request) => contexts.push(request.headers.get('x-user') ?? '(nobody)'))
    const turn = await server.send('hello', undefined, ada)
    expect(contexts).toEqual(['ada'])

    expect(await errorOf(await server.post({ threadId: turn.threadId, message: 'hello' }, bob))).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } })
    expect(await errorOf(await server.post({ message: 'hello' }))).toMatchObject({ status: 403, error: { code: 'FORBIDDEN' } })
    expect(contexts).toEqual(['ada'])
  })
})
