import { InvalidOptionError } from '../../errors.ts'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { fromProviderArgs } from '../../providers/fromProviderArgs.ts'
import type { McpApprove } from './approval.ts'
import type { McpElicitation } from './elicitation.ts'
import { callMcpTool, type McpEntry } from './call.ts'
import { mcpOptions, mcpToolEnvelope } from './envelope.ts'
import type { McpRequestExtra, McpServableTool, McpServerLike } from './types.ts'
import type { ChatTelemetry } from '../../telemetry/hooks.ts'

export interface McpServeOptions<TContext = undefined> {
  /**
   * Decides, in place of the user, whether a call to a tool that needs approval runs
   * (`needsApproval: true`, or a policy that flags the validated input): resolve `true` to run it.
   * Given, it is the only judge, and no elicitation is sent. Without it the user is asked through
   * the client by MCP elicitation (a form), and a client that cannot ask gets the call refused.
   */
  readonly approve?: McpApprove<TContext>
  /** The app context handlers receive as `ctx.context`, per request (e.g. from `extra.authInfo`). */
  readonly context?: (extra: McpRequestExtra) => TContext | Promise<TContext>
  /**
   * How long the user has to answer an approval form before the call is refused. Default 10
   * minutes (the SDK's own default for a request, one minute, is short for a person).
   */
  readonly elicitationTimeoutMs?: number
  /**
   * `openTelemetry()` from `@toolgate/ai/telemetry`: each call gets an `execute_tool` span that
   * continues the caller's trace from the request's `_meta.traceparent`.
   */
  readonly telemetry?: ChatTelemetry
}

/** Where `tools/list` marks a tool that may ask for approval (an `_meta` key, reverse-DNS prefixed as MCP asks). */
export const MCP_NEEDS_APPROVAL_META = 'io.github.toolgate/needsApproval'

const DEFAULT_ELICITATION_TIMEOUT_MS = 10 * 60_000

/**
 * Serves `.server()` tools on an official MCP SDK server (`McpServer` or `Server`), through the
 * low-level `tools/list` and `tools/call` handlers: `McpServer.registerTool` takes only Zod
 * schemas, while these tools publish their own JSON Schema and validate with their own schemas.
 *
 * - `tools/list` returns each tool's exact MCP envelope (`toProviderTool(tool, 'mcp')`), with
 *   `metadata.destructive` as `destructiveHint` unless `metadata.annotations` says otherwise,
 *   and `_meta["io.github.toolgate/needsApproval"]` on a tool that may ask (`'always'`, or
 *   `'policy'` when its policy decides per call); a name MCP refuses is listed under a mapped
 *   name and routed back;
 * - `tools/call` validates, gets approval when due (from `approve`, else from the user by
 *   elicitation), runs and validates the output: the result holds the JSON text, and
 *   `structuredContent` when an output schema is listed. Failures and refusals are `isError`
 *   results saying why (`path: message` for invalid input); an unknown tool is a JSON-RPC error.
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
  checkTools(tools)
  const timeoutMs = elicitationTimeout(options.elicitationTimeoutMs)
  const sdk = await import('@modelcontextprotocol/sdk/types.js')
  const { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } = sdk
  const elicitation: McpElicitation = {
    clientCapabilities: () => lowLevel(server).getClientCapabilities(),
    resultSchema: sdk.ElicitResultSchema,
    timeoutMs,
  }
  const entries = servedTools(tools, options, elicitation)
  const listed = [...entries.values()].map(({ envelope }) => envelope)
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
  readonly envelope: Tool
}

/** Every tool checked before anything is loaded or registered: startup fails, not a call. */
function checkTools(tools: readonly McpServableTool[]): void {
  for (const tool of tools) {
    if (tool?.kind !== 'server') {
      throw new InvalidOptionError('registerMcpTools', 'tools', 'must be .server() tools: an MCP server runs the tools it lists')
    }
  }
}

/** Timers take at most 2^31 - 1 ms; a longer one would fire at once. */
function elicitationTimeout(value: number | undefined): number {
  if (value === undefined) return DEFAULT_ELICITATION_TIMEOUT_MS
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 2 ** 31 - 1) {
    throw new InvalidOptionError('registerMcpTools', 'elicitationTimeoutMs', `must be a whole number of milliseconds from 1 to ${2 ** 31 - 1}, got ${String(value)}`)
  }
  return value
}

/** Each tool converted once, with the calls' routing by listed name. */
function servedTools<TContext>(tools: readonly McpServableTool[], options: McpServeOptions<TContext>, elicitation: McpElicitation): Map<string, ServedTool> {
  const served = new Map<string, ServedTool>()
  for (const tool of tools) {
    const envelope = listedTool(tool)
    const other = served.get(envelope.name)
    if (other) throw new InvalidOptionError('registerMcpTools', 'tools', `has "${other.tool.name}" and "${tool.name}", which would both be listed as "${envelope.name}"`)
    served.set(envelope.name, {
      tool,
      envelope,
      structured: envelope.outputSchema !== undefined,
      approve: options.approve as McpApprove<unknown> | undefined,
      elicitation,
      context: options.context,
    })
  }
  return served
}

/**
 * The exact envelope, marked when the tool may ask for approval: clients may show it (and
 * prepare to answer an elicitation), though the server enforces approval whatever they do.
 */
function listedTool(tool: McpServableTool): Tool {
  const envelope = mcpToolEnvelope(tool) as Tool
  if (tool.needsApproval === false) return envelope
  const needsApproval = tool.needsApproval === true ? 'always' : 'policy'
  return { ...envelope, _meta: { ...envelope._meta, [MCP_NEEDS_APPROVAL_META]: needsApproval } }
}

/** The low-level server, with the tools capability declared and no tool handlers of anyone else. */
function claimToolHandlers(server: McpServerLike): Server {
  const target = lowLevel(server)
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

function lowLevel(server: McpServerLike): Server {
  return 'setRequestHandler' in server ? server : server.server
}
