import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js'
import type { McpToolAnnotations } from '../../providers/targets.ts'
import type { JsonSchema } from '../../schema/types.ts'
import { toolDefinition } from '../../tools/toolDefinition.ts'
import type { ServerTool, ToolContext } from '../../tools/types.ts'
import { mcpResultValue } from './resultValue.ts'
import { traceMeta } from '../../telemetry/traceMeta.ts'

/** What importing needs of an official MCP SDK `Client` (connected). */
export type McpClientLike = Pick<Client, 'listTools' | 'callTool'>

export type { McpListedTool }

/** An imported tool's metadata: the server's annotations, where `toProviderTool(tool, 'mcp')` reads them. */
export type McpToolMetadata = {
  readonly annotations?: McpToolAnnotations | undefined
}

/** An MCP server's tool as a Toolgate server tool: its input is validated by the listed JSON Schema. */
export type McpImportedTool = ServerTool<string, Record<string, unknown>, unknown, boolean, McpToolMetadata>

export interface McpImportOptions {
  /**
   * Which tools ask a human before they run, in a runtime that enforces `needsApproval` (the chat
   * handler does). Default: none. Annotations come from the server, so trust them only as far as it.
   */
  readonly needsApproval?: (tool: McpListedTool) => boolean
  /**
   * Trust the server's `annotations.readOnlyHint`: a tool it says only reads becomes `readOnly`
   * (its calls start before their running mark is stored, and run again after a crash). Default
   * false: a hint is the server's word, and a wrong one lets a call with effects run unrecorded.
   */
  readonly trustAnnotations?: boolean
  readonly signal?: AbortSignal
}

/**
 * The tools an MCP server lists (every page), as `.server()` tools that call it. Each keeps its MCP
 * name (dotted names warn once: some providers refuse them, and provider adapters map them), title,
 * description, JSON Schemas and annotations (in `metadata.annotations`). `execute` calls
 * `client.callTool` with the call's signal and returns `structuredContent` when present, else the
 * text; a result with `isError` throws, with the server's text as the message.
 */
export async function mcpToolDefinitions(client: McpClientLike, options: McpImportOptions = {}): Promise<McpImportedTool[]> {
  const listed = await listAllTools(client, options.signal)
  return listed.map((tool) => importTool(client, tool, options.needsApproval?.(tool) ?? false, options.trustAnnotations === true && tool.annotations?.readOnlyHint === true))
}

async function listAllTools(client: McpClientLike, signal: AbortSignal | undefined): Promise<McpListedTool[]> {
  const tools: McpListedTool[] = []
  let cursor: string | undefined
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { signal })
    tools.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return tools
}

function importTool(client: McpClientLike, listed: McpListedTool, needsApproval: boolean, readOnly: boolean): McpImportedTool {
  const { name, annotations } = listed
  const title = listed.title ?? annotations?.title
  const definition = toolDefinition({
    name,
    // Optional in MCP, required here: the model chooses tools by it.
    description: listed.description || title || name,
    ...(title === undefined ? {} : { title }),
    inputSchema: listed.inputSchema as JsonSchema,
    outputSchema: listed.outputSchema as JsonSchema | undefined,
    needsApproval,
    readOnly,
    metadata: annotations ? { annotations } : {},
  })
  const execute = async (input: Record<string, unknown>, ctx: ToolContext) => {
    // The caller's trace goes along, when `openTelemetry()` is on and the call runs inside a span.
    const meta = traceMeta()
    const params = meta ? { name, arguments: input, _meta: meta } : { name, arguments: input }
    return mcpResultValue(name, await client.callTool(params, undefined, { signal: ctx.signal }))
  }
  return definition.server(execute) as McpImportedTool
}
