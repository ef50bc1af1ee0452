import type { ClientCapabilities, ElicitResult, InputRequiredResult, inputRequired, inputResponse } from '@modelcontextprotocol/server'
import { ToolValidationError } from '../../errors.ts'
import type { DecisionRecord, Principal } from '../../protocol/decisions.ts'
import { formatIssues } from '../../schema/formatIssues.ts'
import { evaluateApproval, fixedApproval, rejectMessageOf } from '../../tools/approval.ts'
import { toolJsonSchema } from '../../tools/toolJsonSchema.ts'
import { validateToolInput } from '../../tools/validateToolValue.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { digestOf } from '../../util/digest.ts'
import { isRecord } from '../../util/isRecord.ts'
import { randomId } from '../../util/randomId.ts'
import { decideApproval as decideProposal, type Requirement } from '../../server/decisions/proposals.ts'
import { ANONYMOUS, chainDecisions } from '../../server/decisions/records.ts'
import { checkedReviewers, describeReviewers, NOBODY } from '../../server/decisions/reviewers.ts'
import type { StoredInterrupt } from '../../server/thread/threadStore.ts'
import { approvalForm, type McpApprovalForm } from './approvalForm.ts'
import { ApprovalStateError, type ApprovalStates } from './approvalState.ts'
import type { McpRequestExtra, McpServableTool } from './types.ts'

// A human's approval of one call. At 2026-07-28 the call is answered `input_required` with the
// approval form, and the client's retry carries the answer; a 2025 connection gets the same form
// by `elicitation/create` during the call. One settlement for both: the same form, the same
// refusals, the same decision rules and records.

/** Where a 2026-07-28 request's `_meta` envelope carries the client's capabilities (the SDK's `CLIENT_CAPABILITIES_META_KEY`). */
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'

/** The key of the approval form among the input requests. */
const APPROVAL = 'approval'

/** What asking needs, fixed when the tools are registered (the SDK's builders, loaded with it). */
export interface McpAsking {
  readonly states: ApprovalStates
  readonly inputRequired: typeof inputRequired
  readonly inputResponse: typeof inputResponse
  readonly onDecision: ((record: DecisionRecord) => void | Promise<void>) | undefined
  /** Signs the records with a key derived from the app's `secret` (as `decisions.secret` does in the chat); without one, plain SHA-256. */
  readonly recordKey: Promise<CryptoKey> | undefined
  /** How long the user has to answer (ms): the signed state's life, and the 2025 elicitation's timeout. */
  readonly ttlMs: number
  /** What the client declared at `initialize` (2025 connections; a 2026-07-28 request carries its own). */
  readonly declared: () => ClientCapabilities | undefined
}

/** Whether the call may run, with the input to run it on (validated again after an edit); else the text the model reads; or the form to ask. */
export type McpApprovalOutcome =
  | { readonly run: true; readonly edited?: { readonly args: Record<string, unknown>; readonly input: unknown } | undefined }
  | { readonly run: false; readonly text: string }
  | { readonly ask: InputRequiredResult }

export interface McpAskedCall {
  readonly tool: McpServableTool
  /** The arguments as the model sent them, in the tool's own shape (not the validated input). */
  readonly args: unknown
  readonly reason: string | undefined
  readonly toolCallId: string
  readonly context: unknown
  readonly extra: McpRequestExtra
}

/**
 * Asks the user, through the client, whether the call may run. At 2026-07-28 the first request is
 * answered with the form; the retry's answer is taken only with the signed state the form went
 * out with, for this very call, once, before it expires (else a typed `ApprovalStateError`, and
 * nothing runs). On a 2025 connection the form goes out as `elicitation/create` on the call's own
 * stream and the answer comes back to this request. Either way: declined (with the tool's
 * `rejectMessage`) and dismissed (no decision) are told apart; a client that cannot show a form
 * is refused, never run; an edit is a new proposal, validated and the tool's policy asked again
 * on it, as in the chat (server/decisions/proposals.ts).
 */
export async function askApproval(call: McpAskedCall, asking: McpAsking): Promise<McpApprovalOutcome> {
  const { tool, args, reason, extra } = call
  const form = approvalForm(tool, toolJsonSchema(tool), args, reason)
  // A 2026-07-28 request carries the `_meta` envelope; a 2025 connection's requests do not.
  if (extra.mcpReq.envelope === undefined) return elicitOnStream(call, form, asking)
  const claims = { tool: tool.name, argsDigest: await digestOf(args ?? null) }
  const state = extra.mcpReq.requestState<unknown>()
  const responses = extra.mcpReq.inputResponses
  if (state === undefined && responses === undefined) {
    if (!canElicitForms(clientCapabilities(extra, asking))) return refused(cannotAsk(tool, 'no MCP elicitation support'))
    const requestState = await asking.states.mint(claims, extra)
    return { ask: asking.inputRequired({ inputRequests: { [APPROVAL]: asking.inputRequired.elicit(form.params) }, requestState }) }
  }
  if (typeof state !== 'string') throw new ApprovalStateError('invalid_request_state', 'An answer came without the approval state it answers; nothing ran. Call the tool again to be asked anew.')
  const answer = asking.inputResponse(responses, APPROVAL)
  if (answer.kind !== 'elicit') throw new ApprovalStateError('invalid_request_state', 'The retry carries no answer to the approval form; nothing ran. Call the tool again to be asked anew.')
  const approval = await asking.states.open(state, claims, extra)
  return settle(call, form, approval.id, answer, asking)
}

/** The 2025 way: `elicitation/create` on the call's stream, answered within the approval TTL, the form withdrawn past it. */
async function elicitOnStream(call: McpAskedCall, form: McpApprovalForm, asking: McpAsking): Promise<McpApprovalOutcome> {
  const { tool, extra } = call
  if (!canElicitForms(asking.declared())) return refused(cannotAsk(tool, 'no MCP elicitation support'))
  let answer: ElicitResult
  try {
    answer = await extra.mcpReq.send({ method: 'elicitation/create', params: form.params }, { signal: extra.mcpReq.signal, timeout: asking.ttlMs })
  } catch (error) {
    if (extra.mcpReq.signal.aborted) throw error
    return refused(askFailed(tool, error, asking.ttlMs))
  }
  return settle(call, form, randomId('mcpa_'), answer, asking)
}

/** The user's answer, whichever way it came: dismissed, declined, or accepted as shown or edited. */
async function settle(call: McpAskedCall, form: McpApprovalForm, approvalId: string, answer: { readonly action: ElicitResult['action']; readonly content?: Record<string, unknown> | undefined }, asking: McpAsking): Promise<McpApprovalOutcome> {
  const { tool, args } = call
  if (answer.action === 'cancel') return refused(`The user dismissed the approval request without deciding, so tool "${tool.name}" did not run.`)
  const proposal = answer.action === 'accept' ? await accepted(tool, form, args, answer.content) : { approved: false as const }
  if ('text' in proposal) return refused(proposal.text)
  const edit = proposal.approved && proposal.edited ? await reask(call, proposal.edited.input) : undefined
  const decided = await decide(call, approvalId, proposal, edit, asking)
  const settled = decided.answer
  if (!settled) {
    return refused(`The edited call waits for ${describeReviewers(decided.reviewers ?? NOBODY)}, who cannot decide it over MCP, so tool "${tool.name}" did not run.`)
  }
  if (settled.kind === 'approval' && settled.approved) return { run: true, ...(proposal.approved && proposal.edited ? { edited: proposal.edited } : {}) }
  const rejectMessage = rejectMessageOf(tool, { toolCallId: call.toolCallId, toolName: tool.name, input: args })
  return refused(`The user declined, so tool "${tool.name}" did not run.${rejectMessage ? `\n${rejectMessage}` : ''}`)
}

type Proposal = { readonly approved: false } | { readonly approved: true; readonly edited?: { readonly args: Record<string, unknown>; readonly input: unknown } }

/**
 * The decision, made by the chat's own rules: the call as an interrupt the requester answers,
 * which settles it (a denial, an approval, an edit the policy lets them approve) or leaves a new
 * proposal waiting for reviewers. Recorded through `onDecision` when the app gave one.
 */
async function decide(call: McpAskedCall, approvalId: string, proposal: Proposal, edit: Requirement | undefined, asking: McpAsking): Promise<StoredInterrupt> {
  const principal = principalOf(call.extra)
  const interrupt: StoredInterrupt = {
    id: approvalId,
    reason: 'tool_approval',
    toolCallId: call.toolCallId,
    toolName: call.tool.name,
    input: call.args,
    ...(call.reason === undefined ? {} : { message: call.reason }),
    requestedBy: principal,
  }
  const answer = !proposal.approved
    ? { kind: 'approval' as const, approved: false }
    : proposal.edited
      ? { kind: 'approval' as const, approved: true, editedArgs: proposal.edited.args }
      : { kind: 'approval' as const, approved: true }
  const { draft, interrupt: decided } = await decideProposal(`mcp:${approvalId}`, interrupt, answer, { principal, channel: 'mcp' }, edit)
  if (asking.onDecision) {
    const { records } = await chainDecisions(undefined, [draft], asking.recordKey)
    await asking.onDecision(records[0]!)
  }
  return decided
}

/** The tool's policy asked again on the edited input, as when the model made the call; a policy that throws keeps the call's own requirement (an edit never loosens it). */
async function reask(call: McpAskedCall, input: unknown): Promise<Requirement> {
  const { tool, toolCallId, context } = call
  const kept: Requirement = { required: true, reason: call.reason, reviewers: undefined }
  const approval = fixedApproval(tool) ?? (await evaluateApproval(tool, input, { toolCallId, context, requestedBy: principalOf(call.extra) }))
  if (approval.error !== undefined) return kept
  const reviewers = approval.reviewers === undefined ? undefined : checkedReviewers(approval.reviewers)
  return { required: approval.required, reason: approval.reason, reviewers: typeof reviewers === 'string' ? NOBODY : reviewers }
}

/** Who asked: the client the transport's auth names, else anonymous. */
export function principalOf(extra: McpRequestExtra): Principal {
  const clientId = extra.http?.authInfo?.clientId
  return clientId ? { id: clientId } : ANONYMOUS
}

/** What the client declared: on the request's own `_meta` at 2026-07-28, else (2025) at `initialize`, which the SDK hands on there. */
function clientCapabilities(extra: McpRequestExtra, asking: McpAsking): ClientCapabilities | undefined {
  const envelope = extra.mcpReq.envelope as { readonly [CLIENT_CAPABILITIES]?: ClientCapabilities } | undefined
  return envelope?.[CLIENT_CAPABILITIES] ?? asking.declared()
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
 * showed runs the call as the model asked; an edit is validated against the tool's schema (the
 * human is trusted to decide, not to type valid input).
 */
async function accepted(tool: McpServableTool, form: McpApprovalForm, args: unknown, content: Record<string, unknown> | undefined): Promise<Proposal | { readonly text: string }> {
  const answer = content ?? {}
  const unasked = Object.keys(answer).filter((name) => !form.editable.has(name))
  if (unasked.length > 0) {
    const names = unasked.map((name) => `"${name}"`).join(', ')
    return { text: `The approval answer set ${names}, which the form did not offer to change, so tool "${tool.name}" did not run.` }
  }
  const shown = form.params.requestedSchema.properties
  const changed = Object.keys(answer).some((name) => !deepEqual(answer[name], shown[name]?.default))
  if (!changed) return { approved: true }
  const edited = { ...(isRecord(args) ? args : {}), ...answer }
  try {
    return { approved: true, edited: { args: edited, input: await validateToolInput(tool, edited) } }
  } catch (error) {
    if (!(error instanceof ToolValidationError)) throw error
    return { text: `The arguments as the user edited them are invalid, so tool "${tool.name}" did not run:\n${formatIssues(error.issues)}` }
  }
}

export function cannotAsk(tool: McpServableTool, why: string): string {
  return `Tool "${tool.name}" needs approval and the client cannot ask the user (${why}), so it did not run.`
}

function askFailed(tool: McpServableTool, error: unknown, timeoutMs: number): string {
  const code = isRecord(error) ? error.code : undefined
  // -32601 Method not found: the client declared elicitation but handles no such request.
  if (code === -32601) return cannotAsk(tool, 'it does not handle elicitation/create')
  if (code === 'REQUEST_TIMEOUT') return `The user did not answer the approval request within ${timeoutMs} ms, so tool "${tool.name}" did not run.`
  const message = error instanceof Error ? error.message : String(error)
  return `Tool "${tool.name}" needs approval and asking the user failed (${message}), so it did not run.`
}

function refused(text: string): McpApprovalOutcome {
  return { run: false, text }
}
