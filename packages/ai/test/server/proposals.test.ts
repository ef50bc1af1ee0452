import { describe, expect, it } from 'vitest'
import { decideApproval } from '../../src/server/decisions/proposals.ts'
import type { StoredInterrupt } from '../../src/server/thread/threadStore.ts'
import { digestOf } from '../../src/util/digest.ts'

// Under a two-person rule an approval counts only for the arguments it approved: one held for
// other arguments (a head written before an edit restarted the count, or by another version)
// never completes the quorum of these.

const carol = { principal: { id: 'carol', roles: ['finance'] }, channel: 'chat' as const }

function waiting(approvedDigest: string): StoredInterrupt {
  return {
    id: 'int_1',
    reason: 'tool_approval',
    toolCallId: 'call_1',
    toolName: 'wire_funds',
    input: { to: 'Zed', amount: 20_000 },
    requestedBy: { id: 'alice' },
    reviewers: { roles: ['finance'], required: 2 },
    approvals: [{ decision: 'approved', by: { id: 'bob', roles: ['finance'] }, at: '2026-01-01T00:00:00.000Z', channel: 'chat', argsDigest: approvedDigest }],
  }
}

describe('an approval under a two-person rule', () => {
  it('completes the quorum with an approval of the same arguments', async () => {
    const { interrupt, draft } = await decideApproval('t_1', waiting(await digestOf({ to: 'Zed', amount: 20_000 })), { kind: 'approval', approved: true }, carol, undefined)
    expect(interrupt.answer).toMatchObject({ kind: 'approval', approved: true })
    expect(draft.ranArgs).toEqual({ to: 'Zed', amount: 20_000 })
  })

  it('settles with only the approvals that counted kept beside it (they are named as the approvers)', async () => {
    const stale = waiting(await digestOf({ to: 'Zed', amount: 200 }))
    const dave = { ...stale.approvals![0]!, by: { id: 'dave', roles: ['finance'] }, argsDigest: await digestOf({ to: 'Zed', amount: 20_000 }) }
    const { interrupt } = await decideApproval('t_1', { ...stale, approvals: [...stale.approvals!, dave] }, { kind: 'approval', approved: true }, carol, undefined)
    expect(interrupt.answer).toMatchObject({ kind: 'approval', approved: true })
    expect(interrupt.approvals?.map((given) => given.by.id)).toEqual(['dave'])
  })

  it('does not count an approval held for other arguments: the call still waits, with the new approval alone', async () => {
    const { interrupt, draft } = await decideApproval('t_1', waiting(await digestOf({ to: 'Zed', amount: 200 })), { kind: 'approval', approved: true }, carol, undefined)
    expect(interrupt.answer).toBeUndefined()
    expect(interrupt.approvals?.map((given) => given.by.id)).toEqual(['carol'])
    expect(draft.ranArgs).toBeUndefined()
    expect(draft.argsDigest).toBe(await digestOf({ to: 'Zed', amount: 20_000 }))
  })
})
