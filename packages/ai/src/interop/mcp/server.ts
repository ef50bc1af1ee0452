import { InvalidOptionError } from '../../errors.ts'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { fromProviderArgs } from '../../providers/fromProviderArgs.ts'
import type { McpTool } from '../../providers/types.ts'
import type { McpApprove } from './approval.ts'
import { callMcpTool, type McpEntry } from './call.ts'
import { mcpOptions, mcpToolEnvelope } from './envelope.ts'
import type { McpRequestExtra, McpServableTool, McpServerLike } from './types.ts'
import type { ChatTelemetry } from '../../telemetry/hooks.ts'

export interface McpServeOptions<TContext = undefined> {
  /**
   * Asked before a call to a tool that needs approval runs (`needsApproval: true`, or a policy
   * that flags the validated input); resolve `true` to run it. Without it such tools are refused
   * at registration: MCP has no approval step, and a client's own confirmation cannot be relied on.
   */
  readonly approve?: McpApprove<TContext>
  /** The app context handlers receive as `ctx.context`, per request (e.g. from `extra.authInfo`). */
  readonly context?: (extra: McpRequestExtra) => TContext | Promise<TContext>
  /**
   * `openTelemetry()` from `@toolgate/ai/telemetry`: each call gets an `execute_tool` span that
   * continues the caller's trace from the request's `_meta.traceparent`.
   */
  readonly telemetry?: ChatTelemetry
}

/**
 * Serves `.server()` tools on an official MCP SDK server (`McpServer` or `Server`), through the
 * low-level `tools/list` and `tools/call` handlers: `McpServer.registerTool` takes only Zod
 * schemas, while these tools publish their own JSON Schema and validate with their own schemas.
 *
 * - `tools/list` returns each tool's exact MCP envelope (`toProviderTool(tool, 'mcp')`), with
 *   `metadata.destructive` as `destructiveHint` unless `metadata.annotations` says otherwise;
 *   a name MCP refuses is listed under a mapped name and routed back;
 * - `tools/call` validates, asks `approve` when due, runs and validates the output: the result
 *   holds the JSON text, and `structuredContent` when an output schema is listed. Failures are
 *   `isError` results with `path: message` text; an unknown tool is a JSON-RPC error.
 *
 * Call it once per server, with all its tools, before `connect` (capabilities are fixed then);
 * it owns the server's tool handlers, so it does not mix with `McpServer.registerTool`. Async
 * because it loads the SDK, an optional peer dependency, when first used.
 */
export async function registerMcpTools<TContext = undefined>(
  server: McpServerLike,
  tools: readonly McpServableTool[],
  options: McpServeOptions<TContext> = {},
): Promise<void> {
  const entries = servedTools(tools, options)
  const listed = [...entries.values()].map(({ envelope }) => envelope as Tool)
  const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = await import('@modelcontextprotocol/sdk/types.js')
  const target = claimToolHandlers(server)

  target.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }))
  target.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const served = entries.get(request.params.name)
    if (!served) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`)
    const args = fromProviderArgs(served.tool, 'mcp', request.params.arguments, mcpOptions(served.tool)).args
    const { telemetry } = options
    if (!telemetry) return callMcpTool(served, args, extra)
    const call = { toolName: served.tool.name, toolCallId: String(extra.requestId), meta: request.params._meta }
    return telemetry.mcpToolCall(call, () => callMcpTool(served, args, extra))
  })
}

interface ServedTool extends McpEntry {
  readonly envelope: McpTool
}

/** Checks every tool and converts it once, before anything is registered: startup fails, not a call. */
function servedTools<TContext>(tools: readonly McpServableTool[], options: McpServeOptions<TContext>): Map<string, ServedTool> {
  const served = new Map<string, ServedTool>()
  for (const tool of tools) {
    if (tool?.kind !== 'server') {
      throw new InvalidOptionError('registerMcpTools', 'tools', 'must be .server() tools: an MCP server runs the tools it lists')
    }
    if (tool.needsApproval !== false && !options.approve) {
      throw new InvalidOptionError(
        'registerMcpTools',
        'approve',
        `is needed: tool "${tool.name}" needs approval, which MCP cannot ask for (or set \`needsApproval: false\` on it)`,
      )
    }
    const envelope = mcpToolEnvelope(tool)
    const other = served.get(envelope.name)
    if (other) throw new InvalidOptionError('registerMcpTools', 'tools', `has "${other.tool.name}" and "${tool.name}", which would both be listed as "${envelope.name}"`)
    served.set(envelope.name, {
      tool,
      envelope,
      structured: envelope.outputSchema !== undefined,
      approve: options.approve as McpApprove<unknown> | undefined,
      context: options.context,
    })
  }
  return served
}

/** The low-level server, with the tools capability declared and no tool handlers of anyone else. */
function claimToolHandlers(server: McpServerLike): Server {
  const target = 'setRequestHandler' in server ? server : server.server
  try {
    target.assertCanSetRequestHandler('tools/list')
    target.assertCanSetRequestHandler('tools/call')
  } catch (error) {
    throw new InvalidOptionError('registerMcpTools', 'server', "already has tool handlers: registerMcpTools() serves all of a server's tools; call it once per server, without McpServer.registerTool()", {
      cause: error,
    })
  }
  if (!target.transport) target.registerCapabilities({ tools: {} })
  return target
}
