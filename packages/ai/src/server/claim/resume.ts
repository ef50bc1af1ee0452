import { unanswered } from '../thread/step.ts'
import { headToClaim, type ClaimStart } from '../thread/cachedClaim.ts'
import { authorizeThread } from '../thread/thread.ts'
import type { ThreadHead } from '../thread/threadStore.ts'
import { ANONYMOUS } from '../decisions/records.ts'
import type { ChatConfig } from '../options.ts'
import { answersChange, NothingAnswered, reportAnswered } from './answersChange.ts'
import { claimThread } from './claimThread.ts'
import { historyAfter, readAndCheck } from './claimedHistory.ts'
import type { AnswersIntent, ClientThread, Resumed } from './intent.ts'
import { newRunId } from './runId.ts'
import { requesterContext } from './requesterContext.ts'

// Answers resume a turn: each is checked against the open step's interrupts (answers.ts) and stored
// with one compare-and-set; the request that completes the step claims the thread, and the turn's
// run goes on (run/startRun.ts). A review link's answers (reviews.ts) make the same change. A client
// that answers its own way (AG-UI `tool` messages) gives them through its hooks (intent.ts).

/**
 * `POST { threadId, resume }`: stores the answers (all or nothing). While others of the step are
 * missing, they are `accepted` with what is still waiting; the request that completes the step claims the
 * thread for the continued `run`. Of two identical concurrent resumes one runs and the other
 * is told the interrupt is already answered (409).
 *
 * A step already fully answered whose run was lost (its process died after the claim, and the
 * lease lapsed) is re-driven by a resume replaying any of its answers: the stored answers apply
 * and the run continues.
 */
export async function resume(config: ChatConfig, request: Request, body: AnswersIntent): Promise<Resumed> {
  const { client } = body
  const nothingNew = client !== undefined && body.resume.length === 0 && !client.endsWithAnswer
  const start = nothingNew ? await startOfClientAnswers(config, request, body.threadId, client) : await headToClaim(config, request, body.threadId)
  if ('nothing' in start) return start
  const runId = newRunId(config.eventLog, body.threadId)
  /** The head the last change was decided on: the cached one, or the stored one after a miss. */
  let decidedOn: ThreadHead | undefined
  let claimed
  try {
    claimed = await claimThread(config.store, start, {
      prepare: async (current) => ({ current, ...(await readAndCheck(config, current, client)) }),
      resolve: async () => {
        // The run goes on for the turn's requester, whoever answers (claim/requesterContext.ts).
        const principal = await config.identify(request)
        const contextOf = requesterContext(config, principal, () => config.resolveContext(request))
        return { context: await contextOf(start.head.turnBy ?? ANONYMOUS), principal, contextOf }
      },
      change: (_, { principal, contextOf }) => {
        const change = answersChange(config, body, { principal, channel: 'chat', contextOf }, runId)
        return (head) => ((decidedOn = head), change(head))
      },
    })
  } catch (error) {
    if (!(error instanceof NothingAnswered)) throw error
    // Claimed on the cached head, which a miss showed another instance moved on from: its stored head waits for nothing they answer.
    if (nothingNew && !answersCalls(client, decidedOn)) return { nothing: {} }
    // The input ends with a result for a call the thread no longer waits for: a repeat.
    throw client ? client.repeated() : error
  }
  const { head, change, prepared } = claimed
  const context = await claimed.resolved.contextOf(head.turnBy ?? ANONYMOUS)
  reportAnswered(config, request, head, change)

  if (!change.start || !head.step) return { accepted: { threadId: head.id, runId, answered: change.answered ?? [], waiting: unanswered(head.step) } }
  const messages = await historyAfter(config, prepared, claimed)
  const held = prepared.snapshot && client ? client.heldIds() : undefined
  return { run: { request, kind: 'resume', runId, head, context, start: change.start, ...(held ? { snapshot: held } : {}), ...(messages ? { messages } : {}) } }
}

/**
 * A client's input with nothing new may still answer calls its own way (AG-UI: `tool` messages for
 * frontend calls); else it asks where the thread stands (`nothing`: dialects/agui/connect.ts). When the head this instance wrote last says they
 * answer calls, they are claimed on it with no read first: the claim proves it, and a miss decides
 * again on the stored head, where answering nothing is a connect, as without the cache. Any other
 * answer needs the stored head (the cache cannot say that no other instance wrote since), and the
 * claim then starts from the head read for it.
 */
async function startOfClientAnswers(config: ChatConfig, request: Request, threadId: string, client: ClientThread): Promise<ClaimStart | Extract<Resumed, { nothing: unknown }>> {
  const cached = config.threadCache?.lastHead(threadId)
  if (cached && answersCalls(client, cached)) return headToClaim(config, request, threadId)
  const head = await config.store.head(threadId)
  if (!head || !answersCalls(client, head)) return { nothing: { read: { head } } }
  await authorizeThread(config, request, threadId, 'write')
  return { head }
}

/** Whether the client's own answers answer calls that wait in `head`. */
function answersCalls(client: ClientThread | undefined, head: ThreadHead | undefined): boolean {
  return client !== undefined && client.answersFrom(head?.step, []).answers.length > 0
}

