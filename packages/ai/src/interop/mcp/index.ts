/** @module @toolgate/ai/interop/mcp */
/** `@toolgate/ai/interop/mcp`: serve tools on the official MCP SDK's server, and import a server's tools. Needs `@modelcontextprotocol/sdk`, or `@modelcontextprotocol/client` 2.x to import from 2026-07-28 servers. */
export { MCP_NEEDS_APPROVAL_META, registerMcpTools, type McpServeOptions } from './server.ts'
export type { McpApprovalRequest, McpApprove } from './approval.ts'
export {
  mcpToolDefinitions,
  type McpClientLike,
  type McpImportedTool,
  type McpImportOptions,
  type McpListedTool,
  type McpToolMetadata,
} from './import.ts'
export type { McpRequestExtra, McpServableTool, McpServerLike } from './types.ts'
