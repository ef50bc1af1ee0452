import { capText, echoed } from '../../util/capText.ts'
import { ToolValidationError } from '../../errors.ts'
import type { ResumeAnswer } from '../../protocol/requests.ts'
import { formatIssuePath } from '../../schema/formatIssues.ts'
import { validateToolInput } from '../../tools/validateToolValue.ts'
import { jsonBytes } from '../../util/jsonBytes.ts'

import { HttpError, messageTooLarge } from '../errors.ts'
import type { OpenStep, StoredInterrupt, StoredAnswer, ThreadHead } from '../thread/threadStore.ts'
import type { ToolRegistry } from '../../tools/toolRegistry.ts'
import type { DecisionChannel, Principal } from '../../protocol/decisions.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { checkLinkApplies, type ReviewClaims } from '../decisions/reviewLinks.ts'
import { makeGrant } from '../decisions/grants.ts'
import type { Grant } from '../../protocol/decisions.ts'
import { ANONYMOUS, type DecisionDraft } from '../decisions/records.ts'
import { checkedReviewers, checkReviewer, NOBODY } from '../decisions/reviewers.ts'
import { decideApproval, type Requirement } from '../decisions/proposals.ts'
import { evaluateApproval, fixedApproval } from '../../tools/approval.ts'
import { contextFor } from '../run/context.ts'
import { entryAt } from '../agents/agentSpec.ts'
import { checkInputAnswer } from './inputAnswers.ts'

// Answers to interrupts, checked when the request arrives, before anything is stored: each names
// an interrupt still open, fits the limits, and is of the kind the interrupt asks for.

/**
 * Checks answers against the open step's interrupts and returns the step with them in it (the
 * `recordAnswers` or `claimForResume` transition stores it). All or nothing: one bad answer
 * refuses the whole request and nothing is stored.
 */
export async function checkAnswers(
  head: ThreadHead,
  answers: readonly ResumeAnswer[],
  tools: ToolRegistry,
  limits: { readonly maxReasonLength: number; readonly maxMessageBytes: number },
  who: Answerer,
): Promise<{
  readonly step: OpenStep
  readonly drafts: readonly DecisionDraft[]
  readonly grants: readonly Grant[]
  /** Interrupts whose edit became a new proposal that waits (their reviewers are to be asked again). */
  readonly reproposed: readonly StoredInterrupt[]
}> {
  const step = head.step
  const byId = new Map((step?.interrupts ?? []).map((interrupt) => [interrupt.id, interrupt]))
  const drafts: DecisionDraft[] = []
  const grants: Grant[] = []
  const reproposed: string[] = []
  for (const [index, answer] of answers.entries()) {
    const path = `resume[${index}]`
    const interrupt = byId.get(answer.interruptId)
    if (who.link) await checkLinkApplies(interrupt, who.link)
    if (!interrupt) throw notPending(head, answer.interruptId, path)
    if (interrupt.answer) throw alreadyAnswered(answer.interruptId, path)
    if ('subagentRunId' in answer && answer.subagentRunId !== undefined && answer.subagentRunId !== interrupt.subagentRunId) throw subagentMismatch(interrupt, answer.subagentRunId, path)
    if ('approved' in answer && interrupt.reason === 'tool_approval') checkReviewer(interrupt, who.principal, path)
    if (interrupt.expiresAt !== undefined && Date.parse(interrupt.expiresAt) <= Date.now()) {
      throw new HttpError(410, 'INTERRUPT_EXPIRED', `Interrupt "${answer.interruptId}" expired at ${interrupt.expiresAt}; send a new message instead`, `${path}.interruptId`)
    }
    const carried = 'output' in answer ? ['output', answer.output] : 'editedArgs' in answer ? ['editedArgs', answer.editedArgs] : undefined
    if (carried) {
      const bytes = jsonBytes(carried[1])
      if (bytes > limits.maxMessageBytes) throw messageTooLarge(bytes, limits.maxMessageBytes, `${path}.${carried[0]}`)
    }
    if (interrupt.inputRequest) checkInputAnswer({ ...interrupt, inputRequest: interrupt.inputRequest }, answer, path)
    const checked = await checkAnswer(interrupt, answer, path, tools, limits.maxReasonLength)
    if (checked.kind !== 'approval') {
      byId.set(interrupt.id, { ...interrupt, answer: checked })
      continue
    }
    const shown = interrupt.proposed ?? interrupt.input
    // A form's values are an answer, not a new proposal of the call: no policy to ask again.
    const edit = checked.approved && !interrupt.inputRequest && 'editedArgs' in checked && !deepEqual(checked.editedArgs, shown) ? await reask(interrupt, checked.editedArgs, tools, who) : undefined
    const { draft, interrupt: decided } = await decideApproval(head.id, interrupt, checked, who, edit)
    if (decided.proposedBy !== interrupt.proposedBy) reproposed.push(decided.id)
    const grant = 'grant' in answer && answer.grant && decided.answer ? await makeGrant(answer.grant, interrupt.toolName, who.principal, draft.args, Date.now(), interrupt.path?.map((hop) => hop.agent)) : undefined
    if (grant) grants.push(grant)
    drafts.push(grant ? { ...draft, grantId: grant.id } : draft)
    // The call's part shows the grant its approval made, as the record does.
    const granted = grant && decided.answer?.kind === 'approval' && decided.answer.decision ? { ...decided, answer: { ...decided.answer, decision: { ...decided.answer.decision, grantId: grant.id } } } : decided
    byId.set(interrupt.id, who.link ? { ...granted, usedLinks: [...(granted.usedLinks ?? []), who.link.nonce] } : granted)
  }
  const interrupts = [...byId.values()]
  return { step: { ...step!, interrupts }, drafts, grants, reproposed: interrupts.filter((interrupt) => reproposed.includes(interrupt.id)) }
}

/** Who answers, and how their answer came: through a review link, its checked claims. */
export interface Answerer {
  readonly principal: Principal
  readonly channel: DecisionChannel
  readonly link?: ReviewClaims
  /** The app's context for the call's requester (claim/requesterContext.ts): the policy is asked again with it on an edit. */
  readonly contextOf?: (requester: Principal) => Promise<unknown>
}

/**
 * The tool's policy asked again on edited arguments (an edit is a new proposal): what it asks for
 * them, with the requester's context, as when the model made the call. A policy that throws keeps
 * the reviewers the call already waited for (it fails closed: an edit never loosens who decides).
 */
async function reask(interrupt: StoredInterrupt, edited: unknown, tools: ToolRegistry, who: Answerer): Promise<Requirement> {
  const entry = entryAt(tools, interrupt)
  const kept: Requirement = { required: true, reason: interrupt.message, reviewers: interrupt.reviewers }
  if (!entry) return kept // the tool is gone: the call fails with a clear result when the step resumes
  const requestedBy = interrupt.requestedBy ?? ANONYMOUS
  const input = await validateToolInput(entry.tool, edited)
  const context = who.contextOf ? await who.contextOf(requestedBy) : undefined
  const approval = fixedApproval(entry.tool) ?? (await evaluateApproval(entry.tool, input, { toolCallId: interrupt.toolCallId, context: contextFor(context, interrupt.toolName), requestedBy }))
  if (approval.error !== undefined) return { ...kept, reason: approval.reason }
  const reviewers = approval.reviewers === undefined ? undefined : checkedReviewers(approval.reviewers)
  return { required: approval.required, reason: approval.reason, reviewers: typeof reviewers === 'string' ? NOBODY : reviewers }
}

/**
 * A resume for a step whose run was lost: its answers are stored already and apply as stored, so
 * the request's own are not applied again; each must still name an interrupt of the step.
 */
export function checkReplay(head: ThreadHead, step: OpenStep, answers: readonly ResumeAnswer[]): void {
  for (const [index, { interruptId }] of answers.entries()) {
    if (!step.interrupts.some((interrupt) => interrupt.id === interruptId)) throw notPending(head, interruptId, `resume[${index}]`)
  }
}

async function checkAnswer(
  interrupt: StoredInterrupt,
  answer: ResumeAnswer,
  path: string,
  tools: ToolRegistry,
  maxReasonLength: number,
): Promise<StoredAnswer> {
  if ('approved' in answer) {
    if (interrupt.reason !== 'tool_approval') {
      throw mismatch(`Interrupt "${interrupt.id}" waits for the result of client tool "${interrupt.toolName}": send \`output\` or \`error\`, not an approval`, path)
    }
    if (!answer.approved) {
      return answer.reason === undefined
        ? { kind: 'approval', approved: false }
        : { kind: 'approval', approved: false, reason: capText(answer.reason, maxReasonLength) }
    }
    if ('editedArgs' in answer && !interrupt.inputRequest) await checkEditedArgs(interrupt, answer.editedArgs, `${path}.editedArgs`, tools)
    return 'editedArgs' in answer ? { kind: 'approval', approved: true, editedArgs: answer.editedArgs } : { kind: 'approval', approved: true }
  }
  if (interrupt.reason !== 'client_tool') {
    throw mismatch(
      `Interrupt "${interrupt.id}" asks to approve tool "${interrupt.toolName}": send \`approved\`; results come only for client tools`,
      path,
    )
  }
  return 'output' in answer ? { kind: 'output', output: answer.output } : { kind: 'error', error: capText(answer.error, maxReasonLength) }
}

/** A human's edit is refused outright when invalid (it is not the model's to correct). */
async function checkEditedArgs(interrupt: StoredInterrupt, editedArgs: unknown, path: string, tools: ToolRegistry): Promise<void> {
  const entry = entryAt(tools, interrupt)
  if (!entry) return // the tool is gone; the call will fail with a clear result when the step resumes
  try {
    await validateToolInput(entry.tool, editedArgs)
  } catch (error) {
    if (!(error instanceof ToolValidationError)) throw error
    const first = error.issues[0]?.path
    const where = first && first.length > 0 ? `${path}${/^\[/.test(formatIssuePath(first)) ? '' : '.'}${formatIssuePath(first)}` : path
    throw new HttpError(422, 'INVALID_EDITED_ARGS', error.message, where)
  }
}

function notPending(head: ThreadHead, interruptId: string, path: string): HttpError {
  if (head.resolvedInterruptIds.includes(interruptId)) return alreadyAnswered(interruptId, path)
  return new HttpError(404, 'INTERRUPT_NOT_FOUND', `Thread has no pending interrupt ${echoed(interruptId)}`, `${path}.interruptId`)
}

function alreadyAnswered(interruptId: string, path: string): HttpError {
  return new HttpError(409, 'INTERRUPT_ALREADY_ANSWERED', `Interrupt ${echoed(interruptId)} is already answered`, `${path}.interruptId`)
}

function mismatch(message: string, path: string): HttpError {
  return new HttpError(422, 'ANSWER_MISMATCH', message, path)
}

/** An answer meant for another subagent's call: refused, so it never decides this one. */
function subagentMismatch(interrupt: StoredInterrupt, named: string, path: string): HttpError {
  const actual = interrupt.subagentRunId === undefined ? "belongs to no subagent" : `belongs to subagent run ${echoed(interrupt.subagentRunId)}`
  return new HttpError(422, 'SUBAGENT_MISMATCH', `Interrupt ${echoed(interrupt.id)} ${actual}, not ${echoed(named)}`, `${path}.subagentRunId`)
}
