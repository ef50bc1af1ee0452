import type { Decision, DecisionChannel, DecisionSummary, Principal, Reviewers } from '../../protocol/decisions.ts'
import { deepEqual } from '../../util/deepEqual.ts'
import { digestOf } from '../../util/digest.ts'
import type { StoredAnswer, StoredInterrupt } from '../thread/threadStore.ts'
import { editedFields, summaryOf, type DecisionDraft } from './records.ts'
import { isReviewer, requiredApprovals } from './reviewers.ts'

// What an approval does to the call it answers: settles it (a denial, or enough approvals of the
// same arguments), counts toward a two-person rule, or, for an edit, makes a new proposal that
// waits for whom the tool's policy names for the edited arguments (docs/approvals.md, "Edits are
// new proposals"). Checked answers only: who may answer at all is decided before (reviewers.ts).

/** What the policy asks for a call: a person's approval or none, and who, when it names reviewers. */
export interface Requirement {
  readonly required: boolean
  readonly reason: string | undefined
  readonly reviewers: Reviewers | undefined
}

/**
 * An approval answer becomes a decision: a record of it, and the interrupt with it. A denial by
 * anyone allowed to decide settles it. An approval counts only for the arguments it approved (its
 * `argsDigest`): short of the reviewers' `required` count it is kept on the interrupt, which stays
 * open for the next reviewer. An edit is a new proposal (`edit`: the policy asked again on it):
 * approvals of the old arguments no longer count; the editor's counts only when the policy lets
 * them approve the edited call, which runs once that is enough, or else waits for whom the policy
 * names (the quorum starts again, from the editor when they count).
 */
export async function decideApproval(
  threadId: string,
  interrupt: StoredInterrupt,
  answer: Extract<StoredAnswer, { kind: 'approval' }>,
  { principal, channel }: { readonly principal: Principal; readonly channel: DecisionChannel },
  edit: Requirement | undefined,
): Promise<{ readonly draft: DecisionDraft; readonly interrupt: StoredInterrupt }> {
  const shown = interrupt.proposed ?? interrupt.input
  const args = answer.approved && 'editedArgs' in answer ? answer.editedArgs : shown
  const edits = answer.approved ? editedFields(shown, args) : []
  const decision: Decision = !answer.approved ? 'denied' : edits.length > 0 ? 'edited' : 'approved'
  const argsDigest = await digestOf(args)
  const base: DecisionDraft = {
    threadId,
    interruptId: interrupt.id,
    toolCallId: interrupt.toolCallId,
    toolName: interrupt.toolName,
    ...(interrupt.path ? { path: interrupt.path } : {}),
    decision,
    by: principal,
    at: new Date().toISOString(),
    channel,
    ...(answer.reason === undefined ? {} : { reason: answer.reason }),
    shownArgs: shown,
    ...(edits.length > 0 ? { editedFields: edits } : {}),
    args,
    argsDigest,
  }
  const summary: DecisionSummary = summaryOf({ ...base, seq: 0, previous: null, digest: '', shownDigest: '' })
  /**
   * The call settles: denied, or approved to run with `args` (the record then says these ran).
   * `before`: the approvals that counted with this one (telemetry names them as the approvers).
   */
  const settled = (before = interrupt.approvals ?? []): { draft: DecisionDraft; interrupt: StoredInterrupt } => ({
    draft: answer.approved ? { ...base, ranArgs: args } : base,
    interrupt: {
      ...withApprovals(interrupt, before),
      answer: answer.approved
        ? { kind: 'approval', approved: true, ...(deepEqual(args, interrupt.input) ? {} : { editedArgs: args }), decision: summary }
        : { ...answer, decision: summary },
    },
  })
  if (!answer.approved) return settled()
  const approval: DecisionSummary = { ...summary, argsDigest }
  if (!edit) {
    // Every approval that counts approved these very arguments (an edit restarts the count, below).
    const counted = (interrupt.approvals ?? []).filter((given) => given.argsDigest === argsDigest)
    if (counted.length + 1 < requiredApprovals(interrupt)) return { draft: base, interrupt: { ...interrupt, approvals: [...counted, approval] } }
    return settled(counted)
  }
  if (!edit.required) return settled([])
  const { reviewers } = edit
  // Without reviewers the policy asks for the approval of whoever may answer the call, as this editor did.
  const counts = !reviewers || (principal.id !== interrupt.requestedBy?.id && isReviewer(reviewers, principal))
  if (counts && (reviewers?.required ?? 1) <= 1) return settled([])
  const { approvals: _, reviewers: __, message: ___, ...rest } = interrupt
  const reason = edit.reason ?? interrupt.message
  const proposal: StoredInterrupt = {
    ...rest,
    proposed: args,
    proposedBy: summary,
    ...(reason === undefined ? {} : { message: reason }),
    ...(reviewers === undefined ? {} : { reviewers }),
    ...(counts ? { approvals: [approval] } : {}),
  }
  return { draft: base, interrupt: proposal }
}

function withApprovals(interrupt: StoredInterrupt, approvals: readonly DecisionSummary[]): StoredInterrupt {
  if (approvals === interrupt.approvals) return interrupt
  const { approvals: _, ...rest } = interrupt
  return approvals.length > 0 ? { ...rest, approvals } : rest
}
