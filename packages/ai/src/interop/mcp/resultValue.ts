import type { CallToolResult, CompatibilityCallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { ToolError } from '../../errors.ts'
import { mcpContentToResult } from './content.ts'

/**
 * What a `tools/call` result means as a tool's return value: `structuredContent` when the server
 * sent it, else the text when every block is text; with images, files or links, a `toolResult()`
 * carrying them as content parts (see content.ts), so nothing is dropped. `isError` throws, with the server's text as the message.
 */
export function mcpResultValue(toolName: string, result: CallToolResult | CompatibilityCallToolResult): unknown {
  // Servers before MCP 2024-11-05 answer `{ toolResult }`.
  if (!('content' in result) && 'toolResult' in result) return result.toolResult
  const { content, structuredContent, isError } = result as CallToolResult
  const texts = content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
  // A ToolError: the model reads the server's text (MCP reports a tool's failures in the result for it to read).
  if (isError) throw new ToolError(texts.join('\n') || `MCP tool "${toolName}" failed`, { cause: result })
  if (texts.length === content.length) return structuredContent !== undefined ? structuredContent : texts.join('\n')
  // Images, files and links come back as a toolResult(): the chat handler stores and shows them.
  return mcpContentToResult(content, structuredContent)
}
