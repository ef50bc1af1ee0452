import type { Principal } from '../../protocol/decisions.ts'
import type { ResumeRequest, ReviewAccepted, ReviewRequest, ReviewView } from '../../protocol/requests.ts'
import { HttpError, threadNotFound } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { toWire, unanswered } from '../thread/step.ts'
import { startDetachedRun } from '../run/startRun.ts'
import { checkLinkApplies, verifyReviewLink, type ReviewClaims } from '../decisions/reviewLinks.ts'
import { checkReviewer, isReviewer } from '../decisions/reviewers.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'
import { answersChange, reportAnswered } from './answersChange.ts'
import { newRunId } from './runId.ts'
import { commitChange } from '../thread/writer/index.ts'
import { requesterContext } from './requesterContext.ts'
import { ANONYMOUS, summaryOf } from '../decisions/records.ts'
import type { Answerer } from './answers.ts'
import { backoff, retry } from '../../util/retry.ts'

// A reviewer's way in: a signed link instead of access to the thread. The token is the authority
// for one interrupt (so `authorize` is not asked), the reviewer rules still hold (the principal
// `identify` gives must be the link's user or hold its role, never the requester), and the
// decision is recorded with channel `review-link`. The run resumes detached: the requester's
// chat follows it from wherever it is open.

/** `POST { review, answer }`: decides the link's interrupt as its reviewer. */
export async function review(config: ChatConfig, request: Request, body: ReviewRequest): Promise<ReviewAccepted> {
  const claims = await claimsOf(config, body.review)
  if (body.threadId !== undefined && body.threadId !== claims.threadId) throw otherTarget('thread')
  if (body.answer.interruptId !== claims.interruptId) throw otherTarget('interrupt')
  const principal = linkPrincipal(claims, await config.identify(request))
  return decideDetached(config, request, { threadId: claims.threadId, resume: [body.answer] }, { principal, channel: 'review-link', link: claims })
}

/**
 * Stores one approval decided outside the chat (a review link, the server API) and, when it
 * completes the step, resumes the run detached: the requester's chat follows it from wherever it
 * is open. One read of the head, one decision made of it, one compare-and-set, then the run; a
 * write another writer beat is decided again on the head stored then. An interrupt still open
 * while a run holds the thread is the one that run is pausing on (it is letting the thread go: an
 * app deciding from `onApprovalRequested`, a reviewer quick on a link, come that early): the
 * decision waits its turn, never longer than a lease, instead of being refused with `THREAD_BUSY`.
 */
export function decideDetached(config: ChatConfig, request: Request, body: ResumeRequest, who: Answerer): Promise<ReviewAccepted> {
  // The run acts for the turn's requester, never for whoever decided (claim/requesterContext.ts).
  const answerer = { ...who, contextOf: requesterContext(config, who.principal) }
  const runId = newRunId(config.eventLog, body.threadId)
  let conflicts = 0
  return retry(() => decideOnce(config, request, body, answerer, runId), {
    attempts: Number.POSITIVE_INFINITY,
    delay: (attempt, error) => (error === CONFLICT ? 0 : busyDelay(attempt)),
    retryable: (error) => isThreadBusy(error) || (error === CONFLICT && ++conflicts < CONFLICT_ATTEMPTS),
    until: Date.now() + config.limits.runLeaseMs,
  }).catch((error: unknown) => {
    throw error === CONFLICT ? new HttpError(409, 'VERSION_CONFLICT', 'The thread kept changing while this request tried to update it; retry') : error
  })
}

const isThreadBusy = (error: unknown) => error instanceof HttpError && error.code === 'THREAD_BUSY'
const busyDelay = backoff(5, 100)
/** Another writer came first: decided again on the head it left. */
const CONFLICT = new Error('The thread changed since it was read')
const CONFLICT_ATTEMPTS = 5

async function decideOnce(config: ChatConfig, request: Request, body: ResumeRequest, who: Required<Pick<Answerer, 'contextOf'>> & Answerer, runId: string): Promise<ReviewAccepted> {
  const head = await config.store.head(body.threadId)
  if (!head) throw threadNotFound(body.threadId)
  // Resolved before anything is stored: a context the app cannot give refuses the answer.
  const context = await who.contextOf(head.turnBy ?? ANONYMOUS)
  const change = await answersChange(config, body, who, runId)(head)
  const written = await commitChange(config.store, head, change)
  if (!written) throw CONFLICT
  reportAnswered(config, request, written, change)
  if (change.start) startDetachedRun(config, { request, kind: 'resume', runId, head: written, context, start: change.start })
  const recorded = change.decisions!.at(-1)!
  return { threadId: written.id, interruptId: recorded.interruptId, decision: summaryOf(recorded), resumed: change.start !== undefined }
}

/** `GET ?review=<token>`: what the link's reviewer decides on, and why the one who opened it may not, if so. Changes nothing. */
export async function reviewView(config: ChatConfig, request: Request, token: string): Promise<ReviewView> {
  const claims = await claimsOf(config, token)
  const head = await config.store.head(claims.threadId)
  if (!head) throw threadNotFound(claims.threadId)
  const interrupt = await checkLinkApplies(unanswered(head.step).find((candidate) => candidate.id === claims.interruptId), claims)
  const refusal = refusalOf(claims, interrupt, await config.identify(request))
  return { threadId: head.id, interrupt: toWire(interrupt, config.tools), linkExpiresAt: new Date(claims.expiresAt).toISOString(), ...(refusal ? { refusal } : {}) }
}

/** What deciding through the link would be refused with, for the one who opened it: the same checks as `review`. */
function refusalOf(claims: ReviewClaims, interrupt: StoredInterrupt, identified: Principal): ReviewView['refusal'] {
  try {
    checkReviewer(interrupt, linkPrincipal(claims, identified), 'review')
    return undefined
  } catch (error) {
    if (error instanceof HttpError) return { code: error.code, message: error.message }
    throw error
  }
}

async function claimsOf(config: ChatConfig, token: string): Promise<ReviewClaims> {
  if (!config.reviewLinks) throw new HttpError(404, 'REVIEW_LINK_INVALID', 'This server makes no review links (`reviewLinks` is not set)', 'review')
  return verifyReviewLink(await config.reviewLinks.key, token)
}

/**
 * Who decides through the link: a user's link is that user (a signed-in principal must be them;
 * one not signed in is taken for them, since the link went to them alone). A role's link needs a
 * signed-in principal with the role: a link forwarded to someone outside it does nothing.
 */
function linkPrincipal(claims: ReviewClaims, identified: Principal): Principal {
  const anonymous = identified.id === 'anonymous'
  if ('user' in claims.reviewer) {
    if (anonymous) return { id: claims.reviewer.user }
    if (identified.id === claims.reviewer.user) return identified
    throw new HttpError(403, 'NOT_A_REVIEWER', `This review link is for "${claims.reviewer.user}"; you are signed in as "${identified.id}"`, 'review')
  }
  if (!isReviewer({ roles: [claims.reviewer.role] }, identified)) {
    throw new HttpError(403, 'NOT_A_REVIEWER', anonymous ? `This review link is for someone in role "${claims.reviewer.role}": sign in first` : `This review link is for someone in role "${claims.reviewer.role}", and "${identified.id}" is not in it`, 'review')
  }
  return identified
}

function otherTarget(what: 'thread' | 'interrupt'): HttpError {
  return new HttpError(401, 'REVIEW_LINK_INVALID', `This review link is for another ${what}`, 'review')
}
