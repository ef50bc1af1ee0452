import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server'
import { ToolValidationError } from '../../errors.ts'
import { internalsOf } from '../../tools/internals.ts'
import type { ToolContext } from '../../tools/types.ts'
import { validateToolInput, validateToolOutput } from '../../tools/validateToolValue.ts'
import { isToolContentResult } from '../../tools/toolResult.ts'
import { isRecord } from '../../util/isRecord.ts'
import { contentResultToMcp } from './content.ts'
import { decideApproval, type McpApprove } from './approval.ts'
import { ApprovalStateError } from './approvalState.ts'
import type { McpAsking } from './askApproval.ts'
import type { McpRequestExtra, McpServableTool } from './types.ts'

/** One tool as served, with what its calls need. */
export interface McpEntry {
  readonly tool: McpServableTool
  /** Whether the listed envelope has an `outputSchema`, which makes `structuredContent` due. */
  readonly structured: boolean
  readonly approve: McpApprove<unknown> | undefined
  readonly context: ((extra: McpRequestExtra) => unknown) | undefined
}

/**
 * Answers one `tools/call`: validate, ask for approval when due (the form as `input_required`),
 * run, validate the output. A tool's failures are results with `isError: true` (MCP-ERR), so the
 * model reads them and can correct its call; a refused approval state (forged, expired, replayed,
 * for another call) is thrown as `ApprovalStateError`, which the server turns into a JSON-RPC error.
 */
export async function callMcpTool(entry: McpEntry, args: unknown, extra: McpRequestExtra, asking: McpAsking): Promise<CallToolResult | InputRequiredResult> {
  const { tool } = entry
  try {
    const validated = await validateToolInput(tool, args)
    const context = await entry.context?.(extra)
    const toolCallId = String(extra.mcpReq.id)
    const approval = await decideApproval({ tool, input: validated, args, toolCallId, context, extra }, entry.approve, asking)
    if ('ask' in approval) return approval.ask
    if (!approval.run) return errorResult(approval.text)
    const { edited } = approval
    const output = await run(tool, edited ? edited.input : validated, edited ? edited.args : args, { toolCallId, signal: extra.mcpReq.signal, context })
    return withEditNote(successResult(output, entry.structured), edited?.args)
  } catch (error) {
    if (error instanceof ApprovalStateError) throw error
    return errorResult(errorText(tool.name, error))
  }
}

/** Says the user changed the call, first, so the model does not read the result as that of its own arguments. */
function withEditNote(result: CallToolResult, editedArgs: Record<string, unknown> | undefined): CallToolResult {
  if (!editedArgs) return result
  const note = { type: 'text' as const, text: `The user edited the arguments before approving; the call ran with ${JSON.stringify(editedArgs)}.` }
  return { ...result, content: [note, ...result.content] }
}

/**
 * Runs the user's handler on the input validated above, so it is validated (and transformed)
 * once; `formatted()` does not apply, as MCP has `isError` for failures.
 */
async function run(tool: McpServableTool, input: unknown, args: unknown, ctx: ToolContext): Promise<unknown> {
  const handler = internalsOf(tool)?.handler
  // A server tool built elsewhere validates again in its own execute, which is harmless.
  if (!handler) return tool.executeUnformatted(args, ctx)
  return validateToolOutput(tool, await handler(input, ctx))
}

/**
 * The output as JSON text, and as `structuredContent` when an output schema was published (the
 * spec asks for both then). A string from a tool without one is sent as the text itself.
 */
function successResult(output: unknown, structured: boolean): CallToolResult {
  if (isToolContentResult(output)) return contentResultToMcp(output, structured, isRecord)
  const text = typeof output === 'string' && !structured ? output : JSON.stringify(output ?? null)
  const content = [{ type: 'text' as const, text }]
  return structured && isRecord(output) ? { content, structuredContent: output } : { content }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/** Validation errors already list `path: message` lines; anything else says which tool failed. */
function errorText(toolName: string, error: unknown): string {
  if (error instanceof ToolValidationError) return error.message
  return `Tool "${toolName}" failed: ${error instanceof Error ? error.message : String(error)}`
}
