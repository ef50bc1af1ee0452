import { useEffect, useMemo, useSyncExternalStore } from 'react'
import { ApprovalForm, ReviewClient, type ApprovalFormState, type ReviewState } from '@toolgate/ai/client'
import type { GrantRequest } from '@toolgate/ai/protocol'

export interface UseReviewOptions {
  /** The chat endpoint the link was made by. */
  readonly endpoint: string
  readonly fetch?: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>
}

export interface UseReviewResult extends ReviewState {
  /** The arguments' form (the same `ApprovalForm` as the chat's dialogs), once the link is read. */
  readonly form: ApprovalForm | undefined
  readonly formState: ApprovalFormState | undefined
  /** Approves what the form shows (with the reviewer's edits, if any), optionally granting later calls of the tool. */
  approve(grant?: GrantRequest): Promise<void>
  deny(reason?: string): Promise<void>
}

const noSubscription = () => () => {}
const nothing = () => undefined

/** A review page for a signed link (`token` from its URL): what to decide, the form, and the decision once made. */
export function useReview(token: string, options: UseReviewOptions): UseReviewResult {
  const { endpoint, fetch } = options
  const client = useMemo(() => new ReviewClient({ endpoint, token, ...(fetch ? { fetch } : {}) }), [endpoint, token, fetch])
  useEffect(() => void client.load(), [client])
  const state = useSyncExternalStore(client.subscribe, client.getSnapshot, client.getSnapshot)
  const form = useMemo(() => {
    const approval = state.view ? client.formApproval : undefined
    return approval && new ApprovalForm(approval)
  }, [client, state.view])
  const formState = useSyncExternalStore(form?.subscribe ?? noSubscription, form?.getSnapshot ?? nothing, form?.getSnapshot ?? nothing)
  return {
    ...state,
    form,
    formState,
    approve: (grant) => client.approve({ ...(form && formState?.edited ? { editedArgs: formState.value } : {}), ...(grant ? { grant } : {}) }),
    deny: (reason) => client.deny(reason),
  }
}
