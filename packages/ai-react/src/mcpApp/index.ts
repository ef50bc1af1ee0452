/** @module @toolgate/ai-react/mcp-app */
/** MCP Apps in a chat: a tool call's view, hosted in a sandboxed iframe (its bridge loads on demand). */
export { McpApp, type McpAppProps } from './McpApp.tsx'
