import type { ClientCapabilities, ElicitResult, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { rejectMessageOf } from '../../tools/approval.ts'
import { toolJsonSchema } from '../../tools/toolJsonSchema.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { isRecord } from '../../util/isRecord.ts'
import { approvalForm, type McpApprovalForm } from './approvalForm.ts'
import type { McpRequestExtra, McpServableTool } from './types.ts'

/** What asking by elicitation needs of the server it runs on, fixed at registration. */
export interface McpElicitation {
  /** What the connected client declared in `initialize` (read per call: it changes on reconnect). */
  readonly clientCapabilities: () => ClientCapabilities | undefined
  /** The SDK's result schema, loaded with the SDK (an optional peer dependency). */
  readonly resultSchema: typeof ElicitResultSchema
  readonly timeoutMs: number
}

/** Whether the call may run, with the arguments the user changed; else the text the model reads. */
export type McpApprovalOutcome =
  | { readonly run: true; readonly editedArgs?: Record<string, unknown> | undefined }
  | { readonly run: false; readonly text: string }

export interface McpElicitedCall {
  readonly tool: McpServableTool
  /** The arguments as the model sent them, in the tool's own shape (not the validated input). */
  readonly args: unknown
  readonly reason: string | undefined
  readonly extra: McpRequestExtra
}

/**
 * Asks the user through the client (`elicitation/create`, form mode) whether the call may run.
 * Every way it can fail to get a yes refuses the call with a text saying why, so the model and
 * the user learn what happened: declined and dismissed are told apart, and a client that cannot
 * ask (no elicitation capability, or `-32601` for the method) is named as the reason.
 */
export async function elicitApproval(call: McpElicitedCall, elicitation: McpElicitation): Promise<McpApprovalOutcome> {
  const { tool, args, reason, extra } = call
  if (!canElicitForms(elicitation.clientCapabilities())) return refused(cannotAsk(tool, 'no MCP elicitation support'))
  const form = approvalForm(tool, toolJsonSchema(tool), args, reason)
  let answer: ElicitResult
  try {
    answer = await extra.sendRequest({ method: 'elicitation/create', params: form.params }, elicitation.resultSchema, {
      signal: extra.signal,
      timeout: elicitation.timeoutMs,
    })
  } catch (error) {
    return refused(askFailed(tool, error, elicitation.timeoutMs))
  }
  switch (answer.action) {
    case 'accept':
      return accepted(tool, form, args, answer.content)
    case 'decline': {
      const rejectMessage = rejectMessageOf(tool, { toolCallId: String(extra.requestId), toolName: tool.name, input: args })
      return refused(`The user declined, so tool "${tool.name}" did not run.${rejectMessage ? `\n${rejectMessage}` : ''}`)
    }
    default:
      return refused(`The user dismissed the approval request without deciding, so tool "${tool.name}" did not run.`)
  }
}

/**
 * A form-mode capability: `elicitation: {}` (the 2025-06-18 spelling, forms only) or `{ form }`.
 * A client that declared only `{ url }` cannot show a form.
 */
function canElicitForms(capabilities: ClientCapabilities | undefined): boolean {
  const declared = capabilities?.elicitation
  if (!isRecord(declared)) return false
  return declared.form !== undefined || declared.url === undefined
}

/**
 * The user accepted: only the fields the form offered may change, and fields left out keep the
 * model's values (a client may send only what changed). An answer that matches what the form
 * showed runs the call as the model asked. The caller validates an edit against the tool's
 * schema before it runs.
 */
function accepted(tool: McpServableTool, form: McpApprovalForm, args: unknown, content: ElicitResult['content']): McpApprovalOutcome {
  const answer = content ?? {}
  const unasked = Object.keys(answer).filter((name) => !form.editable.has(name))
  if (unasked.length > 0) {
    const names = unasked.map((name) => `"${name}"`).join(', ')
    return refused(`The approval answer set ${names}, which the form did not offer to change, so tool "${tool.name}" did not run.`)
  }
  const shown = form.params.requestedSchema.properties
  const changed = Object.keys(answer).some((name) => !deepEqual(answer[name], shown[name]?.default))
  return changed ? { run: true, editedArgs: { ...(isRecord(args) ? args : {}), ...answer } } : { run: true }
}

function cannotAsk(tool: McpServableTool, why: string): string {
  return `Tool "${tool.name}" needs approval and the client cannot ask the user (${why}), so it did not run.`
}

function askFailed(tool: McpServableTool, error: unknown, timeoutMs: number): string {
  const code = isRecord(error) ? error.code : undefined
  // -32601 Method not found: the client declared elicitation but handles no such request.
  if (code === -32601) return cannotAsk(tool, 'it does not handle elicitation/create')
  // -32001 Request timed out (the SDK's own code).
  if (code === -32001) return `The user did not answer the approval request within ${timeoutMs} ms, so tool "${tool.name}" did not run.`
  const message = error instanceof Error ? error.message : String(error)
  return `Tool "${tool.name}" needs approval and asking the user failed (${message}), so it did not run.`
}

function refused(text: string): McpApprovalOutcome {
  return { run: false, text }
}
