/**
 * Toolgate's tools served over MCP on one Streamable HTTP endpoint (`createMcpToolHandler`), called
 * over real HTTP on this machine by the stock clients: `@modelcontextprotocol/client` 2.4 at
 * 2026-07-28 (stateless: a fresh server instance per request) and `@modelcontextprotocol/sdk`
 * 1.32 at the 2025 protocol (a session). A gated call is two requests at 2026-07-28 (the
 * `input_required` round, signed, and the retry with the answer, verified and spent) and one
 * request with an `elicitation/create` exchange on its stream at 2025. Prints the mean
 * milliseconds per call of each, over 20 served tools.
 *
 * Run: tsx --conditions=@toolgate/source bench/mcp.bench.ts
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as v from 'valibot'
import { toolDefinition } from '../src/index.ts'
import { createMcpToolHandler } from '../src/interop/mcp/index.ts'
import { toNodeHandler } from '../src/server/index.ts'

const CALLS = 300
const WARMUP = 30

const tools = Array.from({ length: 19 }, (_, index) =>
  toolDefinition({ name: `lookup_${index}`, description: `Looks up kind ${index}`, inputSchema: v.object({ query: v.string(), limit: v.optional(v.number(), 10) }) }).server(({ query }) => ({ query })),
)
const gated = toolDefinition({ name: 'transfer', description: 'Sends money', inputSchema: v.object({ to: v.string(), amount: v.number() }), needsApproval: true }).server(
  ({ to, amount }) => ({ receipt: `${to}-${amount}` }),
)

const handler = await createMcpToolHandler([...tools, gated], { secret: 'a bench secret of thirty-two bytes or more' })
const http = createServer(toNodeHandler((request) => handler.fetch(request)))
await new Promise<void>((listening) => http.listen(0, '127.0.0.1', listening))
const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)

const modern = new Client({ name: 'bench', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
modern.setRequestHandler('elicitation/create', () => ({ action: 'accept' }))
await modern.connect(new StreamableHTTPClientTransport(url))
const legacy = new LegacyClient({ name: 'bench', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } })
legacy.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept' }))
await legacy.connect(new LegacyTransport(url))

async function mean(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await call()
  const started = performance.now()
  for (let i = 0; i < CALLS; i++) await call()
  return (performance.now() - started) / CALLS
}

const rows: [string, number][] = [
  ['2026-07-28 call', await mean(() => modern.callTool({ name: 'lookup_3', arguments: { query: 'x' } }))],
  ['2026-07-28 gated call (input_required + retry)', await mean(() => modern.callTool({ name: 'transfer', arguments: { to: 'ann', amount: 5 } }))],
  ['2025 call (session)', await mean(() => legacy.callTool({ name: 'lookup_3', arguments: { query: 'x' } }))],
  ['2025 gated call (elicitation/create)', await mean(() => legacy.callTool({ name: 'transfer', arguments: { to: 'ann', amount: 5 } }))],
]
for (const [name, ms] of rows) console.log(`${name.padEnd(50)} ${ms.toFixed(2)} ms/call`)

await modern.close()
await legacy.close()
await handler.close()
http.closeAllConnections()
http.close()
