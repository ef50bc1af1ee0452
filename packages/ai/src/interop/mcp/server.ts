import { InvalidOptionError } from '../../errors.ts'
import type { Server, Tool } from '@modelcontextprotocol/server'
import type { DecisionRecord } from '../../protocol/decisions.ts'
import { decisionRecordKey } from '../../server/decisions/recordKey.ts'
import { fromProviderArgs } from '../../providers/fromProviderArgs.ts'
import { toolApp } from '../../tools/app.ts'
import type { McpApprove } from './approval.ts'
import { appResourceEntry, appToolMeta, readAppResource, servedApps } from './apps.ts'
import { ApprovalStateError, approvalStates, type ApprovalClaims, type McpUsedApprovals } from './approvalState.ts'
import type { McpAsking } from './askApproval.ts'
import { callMcpTool, type McpEntry } from './call.ts'
import { mcpOptions, mcpToolEnvelope } from './envelope.ts'
import type { McpRequestExtra, McpServableTool, McpServerLike } from './types.ts'
import type { ChatTelemetry } from '../../telemetry/hooks.ts'

export interface McpServeOptions<TContext = undefined> {
  /**
   * Decides, in place of the user, whether a call to a tool that needs approval runs
   * (`needsApproval: true`, or a policy that flags the validated input): resolve `true` to run it.
   * Given, it is the only judge, and no form is sent. Without it the user is asked through the
   * client (`input_required` at 2026-07-28, `elicitation/create` before), and a client that
   * cannot ask gets the call refused.
   */
  readonly approve?: McpApprove<TContext>
  /** The app context handlers receive as `ctx.context`, per request (e.g. from `extra.http.authInfo`). */
  readonly context?: (extra: McpRequestExtra) => TContext | Promise<TContext>
  /**
   * Signs the approval state a 2026-07-28 client echoes with its answer (HMAC-SHA256, at least
   * 32 bytes). Give every instance behind one endpoint the same secret, so each accepts the
   * others' forms. Default: a random one per process, which serves one instance only.
   */
  readonly secret?: string | Uint8Array
  /**
   * Which approvals were answered, so a replayed answer is refused. Default: this process's
   * memory; with a `secret` shared by several instances, share this too (e.g. on Redis), or an
   * answer replayed to another instance runs there once more (warned once at start).
   */
  readonly usedApprovals?: McpUsedApprovals
  /**
   * How long the user has to answer an approval form before it is refused. Default 10 minutes.
   */
  readonly approvalTtlMs?: number
  /**
   * Each approval, denial or edit the user answered, as a decision record (channel `mcp`, its own
   * chain of one) to keep; with `secret`, signed as the chat's are (`verifyDecisionRecords` checks
   * it). A throw refuses the call: an answer that cannot be recorded runs nothing.
   */
  readonly onDecision?: (record: DecisionRecord) => void | Promise<void>
  /**
   * `openTelemetry()` from `@toolgate/ai/telemetry`: each call gets an `execute_tool` span that
   * continues the caller's trace from the request's `_meta.traceparent`.
   */
  readonly telemetry?: ChatTelemetry
}

/** Where `tools/list` marks a tool that may ask for approval (an `_meta` key, reverse-DNS prefixed as MCP asks). */
export const MCP_NEEDS_APPROVAL_META = 'io.github.toolgate/needsApproval'

const DEFAULT_APPROVAL_TTL_MS = 10 * 60_000

/**
 * Serves `.server()` tools on an MCP server of the official SDK (`McpServer` or `Server` of
 * `@modelcontextprotocol/server`), through the low-level `tools/list` and `tools/call` handlers
 * (and `resources/list`, `resources/read` for their apps): these tools publish their own JSON
 * Schema and validate with their own schemas.
 *
 * - `tools/list` returns each tool's exact MCP envelope (`toProviderTool(tool, 'mcp')`), with
 *   `metadata.destructive` as `destructiveHint` unless `metadata.annotations` says otherwise,
 *   `_meta["io.github.toolgate/needsApproval"]` on a tool that may ask (`'always'`, or
 *   `'policy'` when its policy decides per call), and `_meta.ui` on a tool with an `app`; a name
 *   MCP refuses is listed under a mapped name and routed back;
 * - `tools/call` validates, gets approval when due (from `approve`, else from the user: an
 *   `input_required` result with the approval form, whose retry carries the answer; on a 2025
 *   connection the SDK sends the same form by `elicitation/create`), runs and validates the
 *   output. Failures and refusals are `isError` results saying why; an unknown tool, and an
 *   answer with a forged, expired, replayed or mismatched state, are JSON-RPC errors (`-32602`,
 *   `data.reason` says which).
 * - `resources/read` serves each app's view as `text/html;profile=mcp-app` with its `_meta.ui`.
 *
 * Call it once per server instance (the 2026-07-28 SDK makes one per request: see
 * `createMcpToolHandler`), before `connect`; it owns the server's tool and resource handlers.
 * Async because it loads the SDK, an optional peer dependency, when first used.
 */
export async function registerMcpTools<TContext = undefined>(server: McpServerLike, tools: readonly McpServableTool[], options: McpServeOptions<TContext> = {}): Promise<void> {
  const serving = await mcpServing(tools, options)
  serving.register(server)
}

/** The tools checked and converted once, with the SDK loaded: registers them on any number of server instances. */
export async function mcpServing<TContext>(tools: readonly McpServableTool[], options: McpServeOptions<TContext>): Promise<{ register(server: McpServerLike): void }> {
  checkTools(tools)
  const ttlMs = approvalTtl(options.approvalTtlMs)
  const sdk = await import('@modelcontextprotocol/server')
  const { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } = sdk
  const states = approvalStates((codec) => sdk.createRequestStateCodec<ApprovalClaims>(codec), options.secret, ttlMs, options.usedApprovals)
  const recordKey = options.secret === undefined || !options.onDecision ? undefined : decisionRecordKey(options.secret)
  const apps = servedApps(tools)
  const resources = [...apps.values()].map(appResourceEntry)
  // Converted once: a 2026-07-28 endpoint registers them on a fresh server instance per request.
  const entries = servedTools(tools, options)
  const listed = [...entries.values()].map(({ envelope }) => envelope)
  return {
    register(server) {
      const target = claimHandlers(server, apps.size > 0)
      const asking: McpAsking = { states, inputRequired: sdk.inputRequired, inputResponse: sdk.inputResponse, onDecision: options.onDecision, recordKey, ttlMs, declared: () => target.getClientCapabilities() }
      target.setRequestHandler('tools/list', () => ({ tools: listed }))
      target.setRequestHandler('tools/call', async (request, extra) => {
        const served = entries.get(request.params.name)
        if (!served) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`)
        const args = fromProviderArgs(served.tool, 'mcp', request.params.arguments, mcpOptions(served.tool)).args
        const { telemetry } = options
        const call = () => callMcpTool(served, args, extra, asking)
        try {
          if (!telemetry) return await call()
          return await telemetry.mcpToolCall({ toolName: served.tool.name, toolCallId: String(extra.mcpReq.id), meta: request.params._meta }, call)
        } catch (error) {
          if (error instanceof ApprovalStateError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, { reason: error.reason })
          throw error
        }
      })
      if (apps.size === 0) return
      target.setRequestHandler('resources/list', () => ({ resources }))
      target.setRequestHandler('resources/read', (request) => {
        const served = apps.get(request.params.uri)
        if (!served) throw new ResourceNotFoundError(request.params.uri)
        return readAppResource(served.app)
      })
    },
  }
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
function approvalTtl(value: number | undefined): number {
  if (value === undefined) return DEFAULT_APPROVAL_TTL_MS
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 2 ** 31 - 1) {
    throw new InvalidOptionError('registerMcpTools', 'approvalTtlMs', `must be a whole number of milliseconds from 1 to ${2 ** 31 - 1}, got ${String(value)}`)
  }
  return value
}

/** Each tool converted once, with the calls' routing by listed name. */
function servedTools<TContext>(tools: readonly McpServableTool[], options: McpServeOptions<TContext>): Map<string, ServedTool> {
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
  const app = toolApp(tool)
  const meta = {
    ...envelope._meta,
    ...(tool.needsApproval === false ? {} : { [MCP_NEEDS_APPROVAL_META]: tool.needsApproval === true ? 'always' : 'policy' }),
    ...(app ? appToolMeta(app) : {}),
  }
  return Object.keys(meta).length > 0 ? { ...envelope, _meta: meta } : envelope
}

/** The low-level server, with the tools (and resources) capability declared and no such handlers of anyone else. */
function claimHandlers(server: McpServerLike, resources: boolean): Server {
  const target = lowLevel(server)
  const methods = ['tools/list', 'tools/call', ...(resources ? ['resources/list', 'resources/read'] : [])]
  try {
    for (const method of methods) target.assertCanSetRequestHandler(method)
  } catch (error) {
    throw new InvalidOptionError('registerMcpTools', 'server', "already has tool or resource handlers: registerMcpTools() serves all of a server's tools and their apps; call it once per server, without McpServer.registerTool()", {
      cause: error,
    })
  }
  if (!target.transport) target.registerCapabilities({ tools: {}, ...(resources ? { resources: {} } : {}) })
  return target
}

function lowLevel(server: McpServerLike): Server {
  return 'setRequestHandler' in server ? server : server.server
}
