import { cleanup, render } from '@testing-library/react'
import { afterEach, expect, it, vi } from 'vitest'
import { useApprovalForm, useChat } from '@toolgate/ai-react'
import { type PendingApproval } from '@toolgate/ai/client'

afterEach(cleanup)

// A file of its own: the form's code comes with a run's first pause, and no run of this module graph has paused.

function Dialog({ approval }: { readonly approval: PendingApproval }) {
  const chat = useChat({ endpoint: 'http://127.0.0.1:9/api/chat' })
  const form = useApprovalForm(chat, approval)
  return <p>{form.fields.length}</p>
}

it('an approval no run of the chat asked for is a clear error, not a form of nothing', () => {
  const approval = {
    type: 'tool-call',
    toolCallId: 'call_1',
    toolName: 'transfer_money',
    state: 'approval-requested',
    input: { amount: 5 },
    approval: {},
    metadata: {},
  } as unknown as PendingApproval
  const quiet = vi.spyOn(console, 'error').mockImplementation(() => {})
  try {
    expect(() => render(<Dialog approval={approval} />)).toThrow(
      'The approval of transfer_money (call_1) is not one this chat waits for: no run of it has paused yet',
    )
  } finally {
    quiet.mockRestore()
  }
})
