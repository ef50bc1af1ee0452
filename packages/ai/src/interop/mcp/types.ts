import type { McpServer, Server, ServerContext } from '@modelcontextprotocol/server'
import type { NeedsApproval, ServerTool, ToolMetadata } from '../../tools/types.ts'

// Type-only imports: the MCP SDK stays an optional peer dependency, loaded at run time only by
// `registerMcpTools` and `createMcpToolHandler` (see interop/mcp/server.ts).

/** An MCP server of the official SDK (`@modelcontextprotocol/server`): the high-level `McpServer` or the low-level `Server`. */
export type McpServerLike = McpServer | Server

/** What the SDK hands a request handler: the request's id, signal, `_meta` envelope, auth info, ... */
export type McpRequestExtra = ServerContext

/** Any `.server()` tool, whatever its types. */
export type McpServableTool = ServerTool<string, unknown, unknown, NeedsApproval, ToolMetadata, unknown>
