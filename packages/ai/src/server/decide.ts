import type { DecisionSummary, GrantRequest, Principal } from '../protocol/decisions.ts'
import type { ApprovalAnswer } from '../protocol/requests.ts'
import { isRecord } from '../util/isRecord.ts'
import { principalProblem } from './config.ts'
import { HttpError } from './errors.ts'
import { checkedThreadId, parseAnswer } from './edge/requests.ts'
import type { ChatConfig } from './options.ts'
import { decideDetached } from './claim/reviews.ts'

// The `api` channel: an app's own backend (a Slack button's handler, an email reply, an admin
// tool) decides an approval as `by`, whom the app has authenticated itself. The same reviewer
// rules hold as in the chat and through a link, and the decision is recorded with channel `api`.

/** What `handler.decide` takes. */
export interface DecideInput {
  readonly threadId: string
  readonly interruptId: string
  readonly decision: 'approved' | 'denied'
  /** Who decides, as the app's own auth knows them: checked against the interrupt's reviewers. */
  readonly by: Principal
  /** With `approved`: the arguments to run instead (recorded as `edited`). */
  readonly editedArgs?: unknown
  /** Why; with `denied`, the model reads it. */
  readonly reason?: string
  /** With `approved`: allow the tool for the rest of the thread. */
  readonly grant?: GrantRequest
  /**
   * The request the decision came in (a Slack interaction's): it continues its trace. The resumed
   * run's `context` is the requester's (`requesterContext`), never made of this request.
   */
  readonly request?: Request
}

/** What `handler.decide` returns: the decision as recorded, and whether the run resumed (else other answers are still awaited). */
export interface DecideResult {
  readonly threadId: string
  readonly interruptId: string
  readonly decision: DecisionSummary
  readonly resumed: boolean
}

/** `handler.decide`: throws `HttpError`s with the codes a chat answer gets (`NOT_A_REVIEWER`, `INTERRUPT_ALREADY_ANSWERED`, ...); bad input is `INVALID_REQUEST` naming the field. */
export async function decide(config: ChatConfig, input: DecideInput): Promise<DecideResult> {
  if (!isRecord(input)) throw invalid('`decide` takes `{ threadId, interruptId, decision, by, ... }`', 'decide')
  const threadId = checkedThreadId(input.threadId)
  const { decision, by } = input
  if (decision !== 'approved' && decision !== 'denied') throw invalid("`decision` must be 'approved' or 'denied'", 'decision')
  const problem = principalProblem(by)
  if (problem) throw invalid(`\`by\` must be the principal who decides, \`{ id, name?, roles? }\` (the app ${problem})`, 'by')
  const { decision: _, by: __, threadId: ___, request, ...rest } = input
  const principal: Principal = { id: by.id, ...(by.name === undefined ? {} : { name: by.name }), ...(by.roles === undefined ? {} : { roles: [...by.roles] }) }
  try {
    const answer = parseAnswer({ ...rest, approved: decision === 'approved' }, 'resume[0]') as ApprovalAnswer
    // Waits its turn while the asking run still lets the thread go (decideDetached).
    return await decideDetached(config, request ?? new Request('http://localhost/', { method: 'POST' }), { threadId, resume: [answer] }, { principal, channel: 'api' })
  } catch (error) {
    // The checks are a resume's; their paths name the field of `decide`'s input instead.
    if (!(error instanceof HttpError) || !error.path?.startsWith('resume[0]')) throw error
    throw new HttpError(error.status, error.code, error.message, error.path.replace(/^resume\[0\]\.?/, '') || undefined)
  }
}

function invalid(message: string, path: string): HttpError {
  return new HttpError(400, 'INVALID_REQUEST', message, path)
}
