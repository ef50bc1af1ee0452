import type { CallToolResult, CompatibilityCallToolResult } from '@modelcontextprotocol/sdk/types.js'

/**
 * What a `tools/call` result means as a tool's return value: `structuredContent` when the server
 * sent it, else the text when every block is text, else the content blocks themselves (images,
 * resources), so nothing is dropped. `isError` throws, with the server's text as the message.
 */
export function mcpResultValue(toolName: string, result: CallToolResult | CompatibilityCallToolResult): unknown {
  // Servers before MCP 2024-11-05 answer `{ toolResult }`.
  if (!('content' in result) && 'toolResult' in result) return result.toolResult
  const { content, structuredContent, isError } = result as CallToolResult
  const texts = content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
  if (isError) throw new Error(texts.join('\n') || `MCP tool "${toolName}" failed`, { cause: result })
  if (structuredContent !== undefined) return structuredContent
  return texts.length === content.length ? texts.join('\n') : content
}
