/** @module @toolgate/ai/interop/mcp */
/**
 * `@toolgate/ai/interop/mcp`: serve tools (and their apps) to MCP clients of every protocol
 * version, and import a server's tools. Serving needs `@modelcontextprotocol/server`; importing,
 * `@modelcontextprotocol/client` 2.x (2026-07-28, and 2025 servers) or `@modelcontextprotocol/sdk` 1.x.
 */
export { MCP_NEEDS_APPROVAL_META, registerMcpTools, type McpServeOptions } from './server.ts'
export { createMcpToolHandler } from './handler.ts'
export type { McpUsedApprovals } from './approvalState.ts'
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
