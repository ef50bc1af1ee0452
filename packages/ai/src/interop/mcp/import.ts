import type { Tool as McpListedTool } from '@modelcontextprotocol/sdk/types.js'
import type { McpToolAnnotations } from '../../providers/targets.ts'
import type { JsonSchema } from '../../schema/types.ts'
import { toolDefinition } from '../../tools/toolDefinition.ts'
import type { ServerTool, ToolContext } from '../../tools/types.ts'
import { mcpResultValue } from './resultValue.ts'
import { traceMeta } from '../../telemetry/traceMeta.ts'
import { InvalidOptionError } from '../../errors.ts'
import { connectionOf, type McpClientLike, type McpConnection } from './connection.ts'
import { importedApp } from './importedApp.ts'
import { inputCalls, LiveCalls } from './inputCalls.ts'

export type { McpClientLike }

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
  /**
   * How long a 2025 server's `elicitation/create` waits in this process for the person's answer
   * before the server is told `cancel`. Default 10 minutes. A 2026-07-28 server's `input_required`
   * waits with the thread instead, as long as the chat's `limits.interruptTtlMs` lets it.
   */
  readonly elicitationTimeoutMs?: number
  readonly signal?: AbortSignal
}

const DEFAULT_ELICITATION_TIMEOUT_MS = 10 * 60_000

/**
 * The tools an MCP server lists (every page), as `.server()` tools that call it. Each keeps its MCP
 * name (dotted names warn once: some providers refuse them, and provider adapters map them), title,
 * description, JSON Schemas and annotations (in `metadata.annotations`). `execute` calls
 * `client.callTool` with the call's signal and returns `structuredContent` when present, else the
 * text; a result with `isError` throws a `ToolError`, with the server's text as the message (the
 * model reads it). A listed `_meta.ui.resourceUri` becomes the tool's `app`.
 *
 * `client` is a connected `Client` of `@modelcontextprotocol/client` 2.x or `@modelcontextprotocol/sdk`
 * 1.x. A call the server answers with `input_required` (2026-07-28), or during which it sends
 * `elicitation/create` (2025), pauses as an approval in the chat whose form is the server's
 * `requestedSchema`; the answer goes back as `accept` (approved, with the form's values) or
 * `decline` (denied). At 2026-07-28 it waits with the thread and any instance can answer it; a 2025
 * request lives in its call, in this process, for `elicitationTimeoutMs` (docs/mcp-import.md).
 * Declare `capabilities: { elicitation: { form: {} } }` on the client so the server may ask.
 */
export async function mcpToolDefinitions(client: McpClientLike, options: McpImportOptions = {}): Promise<McpImportedTool[]> {
  const connection = connectionOf(client)
  const live = new LiveCalls(elicitationTimeout(options.elicitationTimeoutMs))
  const listed = await listAllTools(connection, options.signal)
  // A 2025 server asks during the call: its requests come to the client, and go to the call that waits.
  if (!connection.modern) await connection.onElicitation(live.elicit)
  return listed.map((tool) =>
    importTool(connection, live, tool, options.needsApproval?.(tool) ?? false, options.trustAnnotations === true && tool.annotations?.readOnlyHint === true),
  )
}

/** Timers take at most 2^31 - 1 ms; a longer one would fire at once. */
function elicitationTimeout(value: number | undefined): number {
  if (value === undefined) return DEFAULT_ELICITATION_TIMEOUT_MS
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 2 ** 31 - 1 - 60_000) {
    throw new InvalidOptionError('mcpToolDefinitions', 'elicitationTimeoutMs', `must be a whole number of milliseconds from 1 to ${2 ** 31 - 1 - 60_000}, got ${String(value)}`)
  }
  return value
}

async function listAllTools(connection: McpConnection, signal: AbortSignal | undefined): Promise<McpListedTool[]> {
  const tools: McpListedTool[] = []
  let cursor: string | undefined
  do {
    const page = await connection.listTools(cursor, signal)
    tools.push(...page.tools)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return tools
}

function importTool(connection: McpConnection, live: LiveCalls, listed: McpListedTool, needsApproval: boolean, readOnly: boolean): McpImportedTool {
  const { name, annotations } = listed
  const title = listed.title ?? annotations?.title
  const app = importedApp(connection, listed)
  const call = inputCalls(connection, name, live)
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
    ...(app ? { app } : {}),
  })
  const execute = async (input: Record<string, unknown>, ctx: ToolContext) => {
    // The caller's trace goes along, when `openTelemetry()` is on and the call runs inside a span.
    const meta = traceMeta()
    const params = meta ? { name, arguments: input, _meta: meta } : { name, arguments: input }
    return mcpResultValue(name, (await call(params, ctx)) as Parameters<typeof mcpResultValue>[1])
  }
  return definition.server(execute) as McpImportedTool
}
