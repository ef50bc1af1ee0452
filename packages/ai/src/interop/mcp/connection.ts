import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import type { CallToolResult, CompatibilityCallToolResult, ElicitResult, ReadResourceResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Client as ClientV2 } from '@modelcontextprotocol/client'

// The two official MCP clients as the import uses them: the 1.x SDK's `Client` (2025 protocol)
// and `@modelcontextprotocol/client` 2.x (2026-07-28, and 2025 servers in its legacy era). Type
// imports only: the SDKs stay optional peers, loaded by the app that connects them.

/** What importing needs of an official MCP `Client` (connected): 1.x, or 2.x. */
export type McpClientLike = Pick<ClientV1, 'listTools' | 'callTool'> | Pick<ClientV2, 'listTools' | 'callTool' | 'getProtocolEra'>

/** A `tools/call` result at 2026-07-28 when the server needs input first (MRTR). */
export interface InputRequiredResult {
  readonly resultType: 'input_required'
  readonly inputRequests?: Readonly<Record<string, { readonly method: string; readonly params?: Record<string, unknown> }>>
  readonly requestState?: string
}

export type CallOutcome = CallToolResult | CompatibilityCallToolResult | InputRequiredResult

/** One client, whichever SDK made it. */
export interface McpConnection {
  /** At 2026-07-28: calls may answer `input_required`, and are retried with the answer. */
  readonly modern: boolean
  listTools(cursor: string | undefined, signal: AbortSignal | undefined): Promise<{ readonly tools: readonly Tool[]; readonly nextCursor?: string | undefined }>
  callTool(params: Record<string, unknown>, signal: AbortSignal, timeout?: number): Promise<CallOutcome>
  readResource(uri: string): Promise<ReadResourceResult>
  /** Answers the server's `elicitation/create` with `handler`; `false` when the client did not declare elicitation. */
  onElicitation(handler: (params: Record<string, unknown>) => Promise<ElicitResult>): Promise<boolean>
}

export function connectionOf(client: McpClientLike): McpConnection {
  if ('getProtocolEra' in client && typeof client.getProtocolEra === 'function') return v2(client as ClientV2)
  return v1(client as ClientV1)
}

function v1(client: ClientV1): McpConnection {
  return {
    modern: false,
    listTools: (cursor, signal) => client.listTools(cursor === undefined ? undefined : { cursor }, { signal }),
    callTool: (params, signal, timeout) => client.callTool(params as Parameters<ClientV1['callTool']>[0], undefined, { signal, ...(timeout ? { timeout } : {}) }),
    readResource: (uri) => client.readResource({ uri }),
    onElicitation: async (handler) => {
      const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js')
      try {
        client.setRequestHandler(ElicitRequestSchema, (request) => handler(request.params as Record<string, unknown>))
        return true
      } catch {
        return false // the client declared no elicitation capability: the server will not ask
      }
    },
  }
}

function v2(client: ClientV2): McpConnection {
  return {
    get modern() {
      return client.getProtocolEra() === 'modern'
    },
    listTools: (cursor, signal) => client.listTools(cursor === undefined ? undefined : { cursor }, { signal }) as ReturnType<McpConnection['listTools']>,
    // Manual multi-round-trip mode: an `input_required` answer comes back to us, to store with the thread.
    callTool: (params, signal, timeout) =>
      client.callTool(params as Parameters<ClientV2['callTool']>[0], { signal, allowInputRequired: true, ...(timeout ? { timeout } : {}) }) as Promise<CallOutcome>,
    readResource: (uri) => client.readResource({ uri }) as Promise<ReadResourceResult>,
    onElicitation: async (handler) => {
      try {
        client.setRequestHandler('elicitation/create', (request) => handler(request.params as Record<string, unknown>) as ReturnType<typeof handler>)
        return true
      } catch {
        return false
      }
    },
  }
}

export function isInputRequired(result: CallOutcome): result is InputRequiredResult {
  return (result as { resultType?: unknown }).resultType === 'input_required'
}
