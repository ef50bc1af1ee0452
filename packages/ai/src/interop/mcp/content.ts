import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js'
import { toolResult, type ToolContentPart, type ToolContentResult } from '../../tools/toolResult.ts'

// Tool results with files, both ways: a Toolgate `toolResult()` as MCP content blocks (image
// blocks, embedded resources, resource links), and an MCP server's blocks as a `toolResult()`.

/** A `toolResult()` served over MCP: the output as JSON text (and `structuredContent` when published), then each part. */
export function contentResultToMcp(result: ToolContentResult, structured: boolean, isRecord: (value: unknown) => boolean): CallToolResult {
  const content: ContentBlock[] = []
  if (result.output !== undefined) content.push({ type: 'text', text: JSON.stringify(result.output) })
  for (const part of result.content) content.push(partToMcp(part))
  return structured && isRecord(result.output) ? { content, structuredContent: result.output as Record<string, unknown> } : { content }
}

function partToMcp(part: ToolContentPart): ContentBlock {
  if (part.type === 'text') return { type: 'text', text: part.text }
  const name = part.filename ?? (part.type === 'image' ? 'image' : 'file')
  if (part.url !== undefined) return { type: 'resource_link', uri: part.url, name, mimeType: part.mediaType }
  if (part.attachmentId !== undefined) {
    // A stored attachment lives in a chat handler's store, which MCP cannot reach.
    return { type: 'text', text: `[${part.type} "${name}" (${part.mediaType}) is stored as attachment ${part.attachmentId}]` }
  }
  const data = typeof part.data === 'string' ? part.data.replace(/^data:[^,]*;base64,/, '') : toBase64(part.data!)
  if (part.type === 'image') return { type: 'image', data, mimeType: part.mediaType }
  return { type: 'resource', resource: { uri: `attachment:///${encodeURIComponent(name)}`, mimeType: part.mediaType, blob: data } }
}

/**
 * MCP blocks that are not all text, as a `toolResult()`: `output` is the structured content, else
 * the text; images and blob resources become files with their bytes, resource links files by URL,
 * text resources text. Audio and anything else is kept as a text line naming it, never dropped silently.
 */
export function mcpContentToResult(content: readonly ContentBlock[], structuredContent: unknown): ToolContentResult {
  const parts: ToolContentPart[] = []
  const texts: string[] = []
  for (const block of content) {
    if (block.type === 'text') texts.push(block.text)
    else if (block.type === 'image') parts.push({ type: 'image', mediaType: block.mimeType, data: block.data })
    else if (block.type === 'resource' && 'blob' in block.resource) {
      parts.push({ type: 'file', mediaType: block.resource.mimeType ?? 'application/octet-stream', data: block.resource.blob, filename: fileName(block.resource.uri) })
    } else if (block.type === 'resource' && 'text' in block.resource) parts.push({ type: 'text', text: block.resource.text })
    else if (block.type === 'resource_link' && /^https?:\/\//i.test(block.uri)) {
      parts.push({ type: 'file', mediaType: block.mimeType ?? 'application/octet-stream', url: block.uri, filename: block.name })
    } else parts.push({ type: 'text', text: `[${block.type} content from the MCP server, not shown]` })
  }
  const output = structuredContent !== undefined ? structuredContent : texts.length > 0 ? texts.join('\n') : undefined
  return toolResult({ output, content: parts })
}

function fileName(uri: string): string | undefined {
  const last = uri.split(/[/?#]/).filter(Boolean).at(-1)
  return last ? decodeURIComponent(last) : undefined
}

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000))
  return btoa(binary)
}
