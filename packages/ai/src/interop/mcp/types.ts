import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import type { NeedsApproval, ServerTool, ToolMetadata } from '../../tools/types.ts'

// Type-only imports: the MCP SDK stays an optional peer dependency, loaded at run time only by
// `registerMcpTools` (see interop/mcp/server.ts).

/** An official MCP SDK server: the high-level `McpServer` or the low-level `Server`. */
export type McpServerLike = McpServer | Server

/** What the SDK hands a request handler: the abort signal, the JSON-RPC id, auth info, ... */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>

/** Any `.server()` tool, whatever its types. */
export type McpServableTool = ServerTool<string, unknown, unknown, NeedsApproval, ToolMetadata, unknown>
