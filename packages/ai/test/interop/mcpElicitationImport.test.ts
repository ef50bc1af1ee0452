import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { memoryStore, toNodeHandler, type ThreadStore } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { mcpToolDefinitions, type McpImportOptions } from '@toolgate/ai/interop/mcp'
import { closeAll, startServer, type TestServer } from '../server/helpers/server.ts'

// A 2025 MCP server (the 1.x SDK, 1.32, over Streamable HTTP with sessions) whose tool asks the
// person by `elicitation/create` during the call: imported into a chat, the request waits in the
// thread as an approval while the call stays live in this process. The answer goes back through
// the live call; after a restart, or past the wait, the call ends with an error saying why.

afterEach(closeAll)

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => {})
})

async function repoServer() {
  const counts = { calls: 0, executions: 0 }
  const outcomes: string[] = []
  const choices: unknown[] = []
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()
  const serve = async (request: Request): Promise<Response> => {
    const known = sessions.get(request.headers.get('mcp-session-id') ?? '')
    if (known) return known.handleRequest(request)
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => void sessions.set(id, transport) })
    const server = new McpServer({ name: 'repos', version: '1.0.0' })
    server.registerTool('delete_repo', { description: 'Deletes a repository', inputSchema: { repo: z.string() } }, async ({ repo }) => {
      counts.calls++
      const answer = await server.server.elicitInput(
        { message: `Delete ${repo}? Type its name to confirm.`, requestedSchema: {
            type: 'object',
            properties: {
              confirm: { type: 'string', title: 'Repository name' },
              backup: { type: 'string', title: 'Backup', oneOf: [{ const: 'archive', title: 'Archive it first' }, { const: 'none', title: 'No backup' }], default: 'archive' },
            },
            required: ['confirm'],
          },
        },
        { timeout: 600_000 },
      )
      outcomes.push(answer.action)
      if (answer.action !== 'accept') return { content: [{ type: 'text', text: `Not deleted: ${answer.action}` }] }
      choices.push(answer.content?.backup)
      if (answer.content?.confirm !== repo) return { content: [{ type: 'text', text: 'The name did not match' }], isError: true }
      counts.executions++
      return { content: [{ type: 'text', text: `Deleted ${repo}` }] }
    })
    await server.connect(transport)
    return transport.handleRequest(request)
  }
  const http = createServer(toNodeHandler(serve))
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  closers.push(async () => {
    http.closeAllConnections()
    await new Promise((resolve) => http.close(resolve))
  })
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, counts, outcomes, choices }
}

type Repos = Awaited<ReturnType<typeof repoServer>>

async function connectV1(url: string) {
  const client = new Client({ name: 'toolgate', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  closers.push(() => client.close())
  return client
}

async function connectV2(url: string) {
  // No version negotiation: the 2.x client speaks 2025 to this server (its legacy era).
  const client = new ClientV2({ name: 'toolgate', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
  await client.connect(new TransportV2(new URL(url)))
  closers.push(() => client.close())
  return client
}

async function instance(repos: Repos, store: ThreadStore, options: McpImportOptions & { v2?: boolean } = {}): Promise<TestServer> {
  const client = options.v2 ? await connectV2(repos.url) : await connectV1(repos.url)
  const tools = await mcpToolDefinitions(client, options)
  const model = scriptedModel([{ when: 'delete', call: () => ({ tool: 'delete_repo', input: { repo: 'acme/site' } }), then: ([result]) => `${result!.status}: ${result!.content}` }], { tools })
  return startServer({ model, tools, store })
}

async function asked(chat: TestServer) {
  const turn = await chat.send('delete the repo')
  expect(turn.finished?.outcome.type, JSON.stringify(turn.results)).toBe('interrupt')
  const interrupt = turn.interrupts[0]!
  // The form starts from the request's defaults; a titled choice is shown as a plain choice every form renders.
  expect(interrupt).toMatchObject({ reason: 'tool_approval', toolName: 'delete_repo', message: 'Delete acme/site? Type its name to confirm.', input: { backup: 'archive' } })
  expect((interrupt.responseSchema as { $defs: { input: unknown } }).$defs.input).toMatchObject({
    properties: { confirm: { type: 'string', title: 'Repository name' }, backup: { type: 'string', title: 'Backup', enum: ['archive', 'none'] } },
    required: ['confirm'],
  })
  return { threadId: turn.threadId, interrupt }
}

describe('an imported tool whose 2025 server elicits during the call', () => {
  it.each([['1.x'], ['2.x, legacy era']])('(%s client) answers through the live call, which completes once', async (client) => {
    const repos = await repoServer()
    const chat = await instance(repos, memoryStore(), { v2: client !== '1.x' })
    const { threadId, interrupt } = await asked(chat)
    expect(repos.counts).toEqual({ calls: 1, executions: 0 })
    const wrong = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { confirm: 'acme/site', backup: 'tape' } }])
    expect(wrong.body).toMatchObject({ error: { code: 'INVALID_EDITED_ARGS', path: 'resume[0].editedArgs.backup' } })
    const done = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { confirm: 'acme/site', backup: 'archive' } }])
    expect(done.results.map((result) => JSON.parse(result.content))).toEqual(['Deleted acme/site'])
    expect(repos.outcomes).toEqual(['accept'])
    // Values left as shown are sent as shown; a choice outside the request's own schema is refused first.
    expect(repos.choices).toEqual(['archive'])
    expect(repos.counts).toEqual({ calls: 1, executions: 1 })
    const again = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { confirm: 'acme/site' } }])
    expect(again.body).toMatchObject({ error: { code: 'INTERRUPT_ALREADY_ANSWERED' } })
    expect(repos.counts.executions).toBe(1)
  })

  it('answers a denial with decline', async () => {
    const repos = await repoServer()
    const chat = await instance(repos, memoryStore())
    const { threadId, interrupt } = await asked(chat)
    const done = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: false }])
    expect(done.results.map((result) => JSON.parse(result.content))).toEqual(['Not deleted: decline'])
    expect(repos.outcomes).toEqual(['decline'])
    expect(repos.counts.executions).toBe(0)
  })

  it('ends honestly when the answer reaches another instance (a restart): the call did not complete here', async () => {
    const repos = await repoServer()
    const store = memoryStore()
    const first = await instance(repos, store)
    const { threadId, interrupt } = await asked(first)
    await first.close()
    const second = await instance(repos, store)
    const done = await second.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { confirm: 'acme/site' } }])
    expect(done.results[0]).toMatchObject({ metadata: { status: 'error' } })
    expect(done.results[0]!.content).toMatch(/^Tool "delete_repo" failed: Tool "delete_repo" asked for input during its call \(an MCP server on the 2025 protocol, by elicitation\/create\), and that call can no longer take the answer: it lived in another server process/)
    expect(repos.counts.executions).toBe(0)
  })

  it('tells the server cancel when no one answers in time, and a later answer ends with an error', async () => {
    const repos = await repoServer()
    const chat = await instance(repos, memoryStore(), { elicitationTimeoutMs: 20 })
    const { threadId, interrupt } = await asked(chat)
    await vi.waitFor(() => expect(repos.outcomes).toEqual(['cancel']))
    const done = await chat.resume(threadId, [{ interruptId: interrupt.id, approved: true, editedArgs: { confirm: 'acme/site' } }])
    expect(done.results[0]!.content).toMatch(/can no longer take the answer: it waited longer than 20 ms \(elicitationTimeoutMs\), so it was cancelled/)
    expect(repos.counts.executions).toBe(0)
  })
})
