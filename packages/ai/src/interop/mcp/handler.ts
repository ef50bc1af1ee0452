import type { AuthInfo, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import { mcpServing, type McpServeOptions } from './server.ts'
import type { McpServableTool } from './types.ts'

/** 2025 sessions one handler holds at most. */
const MAX_SESSIONS = 1024

/** The endpoint `createMcpToolHandler` returns: a Fetch handler (`toNodeHandler` from `@toolgate/ai/server` adapts it to `node:http`). */
export interface McpToolHandler {
  /** Answers one HTTP request; `authInfo` is what your own auth verified (the SDK never reads it from headers). */
  fetch(request: Request, options?: { readonly authInfo?: AuthInfo }): Promise<Response>
  /** Ends the open 2025 sessions and the 2026-07-28 exchanges in flight. */
  close(): Promise<void>
}

/**
 * One Streamable HTTP endpoint serving the tools (and their apps) to every MCP client. A
 * 2026-07-28 request is answered statelessly by a fresh server instance (no `initialize`, no
 * session; an approval is an `input_required` round whose signed state any instance given the
 * same `secret` accepts). A 2025 client (`initialize` first) gets a session on this instance, so
 * the approval form can travel as `elicitation/create` on its call's stream and the answer come
 * back to the same server; behind a load balancer, route a 2025 session's requests by their
 * `Mcp-Session-Id` header to the instance that opened it.
 */
export async function createMcpToolHandler<TContext = undefined>(
  tools: readonly McpServableTool[],
  options: McpServeOptions<TContext> & { readonly serverInfo?: { readonly name: string; readonly version: string } } = {},
): Promise<McpToolHandler> {
  const serving = await mcpServing(tools, options)
  const sdk = await import('@modelcontextprotocol/server')
  const info = { name: options.serverInfo?.name ?? 'toolgate', version: options.serverInfo?.version ?? '0.0.0' }
  const instance = () => {
    const server = new sdk.McpServer(info)
    serving.register(server)
    return server
  }
  const modern = sdk.createMcpHandler(instance, { legacy: 'reject' })
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()

  async function legacy(request: Request, authInfo: AuthInfo | undefined): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id')
    if (sessionId !== null) {
      const open = sessions.get(sessionId)
      if (open) return open.handleRequest(request, { authInfo })
      return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 })
    }
    const transport: WebStandardStreamableHTTPServerTransport = new sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        // Sessions a client never closed are held up to a bound: past it the oldest is ended.
        if (sessions.size >= MAX_SESSIONS) {
          const [oldest, open] = sessions.entries().next().value!
          sessions.delete(oldest)
          void open.close()
        }
        sessions.set(id, transport)
      },
      onsessionclosed: (id) => void sessions.delete(id),
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    await instance().connect(transport)
    return transport.handleRequest(request, { authInfo })
  }

  return {
    async fetch(request, { authInfo } = {}) {
      return (await sdk.isLegacyRequest(request)) ? legacy(request, authInfo) : modern.fetch(request, { ...(authInfo ? { authInfo } : {}) })
    },
    async close() {
      await modern.close()
      const open = [...sessions.values()]
      sessions.clear()
      await Promise.all(open.map((transport) => transport.close()))
    },
  }
}
