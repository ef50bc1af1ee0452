export type { StandardTool, StandardToolSchema } from './standardTool.ts'
export { toTanStackTool, type TanStackTool, type TanStackToolOf } from './tanstack.ts'
export type { TanStackToolContext } from './tanstackContext.ts'
export { registerMcpTools, type McpServeOptions } from './mcpServer.ts'
export type { McpApprovalRequest, McpApprove } from './mcpApproval.ts'
export {
  mcpToolDefinitions,
  type McpClientLike,
  type McpImportedTool,
  type McpImportOptions,
  type McpListedTool,
  type McpToolMetadata,
} from './mcpImport.ts'
export type { McpRequestExtra, McpServableTool, McpServerLike } from './mcpTypes.ts'
export { toAISdkTool, toAISdkTools, type AISdkToolOf, type AISdkToolsOf } from './aiSdk.ts'
