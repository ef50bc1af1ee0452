import { capText, echoed } from '../../util/capText.ts'
import { ToolValidationError } from '../../errors.ts'
import type { ResumeAnswer } from '../../protocol/requests.ts'
import { formatIssuePath } from '../../schema/formatIssues.ts'
import { validateToolInput } from '../../tools/validateToolValue.ts'
import { jsonBytes } from '../../util/jsonBytes.ts'

import { HttpError, messageTooLarge } from '../errors.ts'
import type { OpenStep, StoredInterrupt, StoredAnswer, ThreadHead } from '../thread/threadStore.ts'
import type { ToolRegistry } from '../../tools/toolRegistry.ts'
import type { Decision, DecisionChannel, DecisionSummary, Principal } from '../../protocol/decisions.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { digestOf } from '../../util/digest.ts'
import type { ReviewClaims } from '../decisions/reviewLinks.ts'
import { makeGrant } from '../decisions/grants.ts'
import type { Grant } from '../../protocol/decisions.ts'
import { editedFields, summaryOf, type DecisionDraft } from '../decisions/records.ts'
import { checkReviewer, requiredApprovals } from '../decisions/reviewers.ts'

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
): Promise<{ readonly step: OpenStep; readonly drafts: readonly DecisionDraft[]; readonly grants: readonly Grant[] }> {
  const step = head.step
  const byId = new Map((step?.interrupts ?? []).map((interrupt) => [interrupt.id, interrupt]))
  const drafts: DecisionDraft[] = []
  const grants: Grant[] = []
  for (const [index, answer] of answers.entries()) {
    const path = `resume[${index}]`
    const interrupt = byId.get(answer.interruptId)
    if (!interrupt || interrupt.answer) {
      if (who.link) throw linkUsed()
      if (!interrupt) throw notPending(head, answer.interruptId, path)
      throw alreadyAnswered(answer.interruptId, path)
    }
    if (who.link) await checkLink(interrupt, who.link)
    if ('approved' in answer && interrupt.reason === 'tool_approval') checkReviewer(interrupt, who.principal, path)
    if (interrupt.expiresAt !== undefined && Date.parse(interrupt.expiresAt) <= Date.now()) {
      throw new HttpError(410, 'INTERRUPT_EXPIRED', `Interrupt "${answer.interruptId}" expired at ${interrupt.expiresAt}; send a new message instead`, `${path}.interruptId`)
    }
    const carried = 'output' in answer ? ['output', answer.output] : 'editedArgs' in answer ? ['editedArgs', answer.editedArgs] : undefined
    if (carried) {
      const bytes = jsonBytes(carried[1])
      if (bytes > limits.maxMessageBytes) throw messageTooLarge(bytes, limits.maxMessageBytes, `${path}.${carried[0]}`)
    }
    const checked = await checkAnswer(interrupt, answer, path, tools, limits.maxReasonLength)
    if (checked.kind !== 'approval') {
      byId.set(interrupt.id, { ...interrupt, answer: checked })
      continue
    }
    const { draft, interrupt: decided } = decide(head.id, interrupt, checked, who)
    const grant = 'grant' in answer && answer.grant && decided.answer ? await makeGrant(answer.grant, interrupt.toolName, who.principal, draft.ranArgs) : undefined
    if (grant) grants.push(grant)
    drafts.push(grant ? { ...draft, grantId: grant.id } : draft)
    // The call's part shows the grant its approval made, as the record does.
    const granted = grant && decided.answer?.kind === 'approval' && decided.answer.decision ? { ...decided, answer: { ...decided.answer, decision: { ...decided.answer.decision, grantId: grant.id } } } : decided
    byId.set(interrupt.id, who.link ? { ...granted, usedLinks: [...(granted.usedLinks ?? []), who.link.nonce] } : granted)
  }
  return { step: { ...step!, interrupts: [...byId.values()] }, drafts, grants }
}

/** Who answers, and how their answer came: through a review link, its checked claims. */
export interface Answerer {
  readonly principal: Principal
  readonly channel: DecisionChannel
  readonly link?: ReviewClaims
}

/** A link works once, and only for the arguments it was made for: a reviewer never approves what they were not shown. */
async function checkLink(interrupt: StoredInterrupt, link: ReviewClaims): Promise<void> {
  if (interrupt.usedLinks?.includes(link.nonce)) throw linkUsed()
  if ((await digestOf(interrupt.proposed ?? interrupt.input)) !== link.argsDigest) {
    throw new HttpError(409, 'ARGUMENTS_CHANGED', `The arguments of "${interrupt.toolName}" changed since this review link was made; it no longer applies`, 'review')
  }
}

function linkUsed(): HttpError {
  return new HttpError(409, 'REVIEW_LINK_USED', 'This review link was already used, or its request is already decided', 'review')
}

/**
 * An approval answer becomes a decision: a record of it, and the interrupt with it. An approval
 * short of the reviewers' `required` count is kept on the interrupt, which stays open for the next
 * reviewer; a denial by any reviewer settles it.
 */
function decide(
  threadId: string,
  interrupt: StoredInterrupt,
  answer: Extract<StoredAnswer, { kind: 'approval' }>,
  { principal, channel }: Answerer,
): { readonly draft: DecisionDraft; readonly interrupt: StoredInterrupt } {
  const shown = interrupt.proposed ?? interrupt.input
  const ran = 'editedArgs' in answer ? answer.editedArgs : shown
  const edits = answer.approved ? editedFields(shown, ran) : []
  const decision: Decision = !answer.approved ? 'denied' : edits.length > 0 ? 'edited' : 'approved'
  const at = new Date().toISOString()
  const draft: DecisionDraft = {
    threadId,
    interruptId: interrupt.id,
    toolCallId: interrupt.toolCallId,
    toolName: interrupt.toolName,
    decision,
    by: principal,
    at,
    channel,
    ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    shownArgs: shown,
    ...(answer.approved ? { ranArgs: ran } : {}),
    ...(edits.length > 0 ? { editedFields: edits } : {}),
  }
  const summary: DecisionSummary = summaryOf({ ...draft, seq: 0, previous: null, digest: '', shownDigest: '' })
  if (answer.approved && (interrupt.approvals?.length ?? 0) + 1 < requiredApprovals(interrupt)) {
    // More reviewers must approve what this one approved: an edit becomes what they are shown.
    const proposed = edits.length > 0 ? { proposed: ran } : {}
    return { draft, interrupt: { ...interrupt, ...proposed, approvals: edits.length > 0 ? [summary] : [...(interrupt.approvals ?? []), summary] } }
  }
  const original = interrupt.input
  const finalAnswer: StoredAnswer = answer.approved
    ? { kind: 'approval', approved: true, ...(deepEqual(ran, original) ? {} : { editedArgs: ran }), decision: summary }
    : { ...answer, decision: summary }
  return { draft, interrupt: { ...interrupt, answer: finalAnswer } }
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
    if ('editedArgs' in answer) await checkEditedArgs(interrupt, answer.editedArgs, `${path}.editedArgs`, tools)
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
  const entry = tools.get(interrupt.toolName)
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
