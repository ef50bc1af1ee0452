import type { DecisionRecord } from '../../protocol/decisions.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { fetchRequest } from '../appRequest.ts'
import type { RunFailure, ThreadSnapshot, ThreadStatus, ThreadWindow } from '../../protocol/thread.ts'
import type { ChatConfig, ThreadAction } from '../options.ts'
import { HttpError, threadNotFound } from '../errors.ts'
import { recordedAnswers, toWire, unanswered } from './step.ts'
import type { ThreadHead, ThreadStore } from './threadStore.ts'
import type { ToolRegistry } from '../../tools/toolRegistry.ts'

// The thread as the runtime handles it: loading it for a request, who holds it, and what a reloaded
// page is shown of it. The storage contract is in threadStore.ts; every write goes through the
// thread writer (writer/).

/** The head of a thread that does not exist yet. */
export function newHead(id: string): ThreadHead {
  const now = Date.now()
  return { id, version: 0, createdAt: now, updatedAt: now, messageCount: 0, bytes: 0, resolvedInterruptIds: NONE_RESOLVED }
}

/**
 * The settled interrupts of a thread that has settled none: one frozen list for every such head,
 * not an array per new thread kept with it by the memory store (most threads never settle one;
 * `rememberResolved` makes a thread's own list with its first).
 */
const NONE_RESOLVED: readonly string[] = Object.freeze([])

/**
 * Loads the head of a thread the request may access: 403 when `authorize` says no, else 404 when
 * it does not exist. `authorize` is asked before the thread is looked up, so someone refused
 * learns nothing of whether it exists.
 */
export async function loadHead(config: ChatConfig, request: Request, threadId: string, action: ThreadAction): Promise<ThreadHead> {
  await authorizeThread(config, request, threadId, action)
  const head = await config.store.head(threadId)
  if (!head) throw threadNotFound(threadId)
  return head
}

/** Throws 403 unless `authorize` lets the request do `action`; without an `authorize` option there is nothing to ask, and nothing to wait for (`undefined`). */
export function authorizeThread(config: ChatConfig, request: Request, threadId: string, action: ThreadAction): Promise<void> | undefined {
  if (!config.authorize) return undefined
  return mayAccess(config, request, threadId, action).then((allowed) => {
    if (!allowed) throw new HttpError(403, 'FORBIDDEN', 'You may not access this thread', 'threadId')
  })
}

/** Whether `authorize` lets the request do `action` to the thread. */
export async function mayAccess(config: ChatConfig, request: Request, threadId: string, action: ThreadAction): Promise<boolean> {
  return !config.authorize || (await config.authorize(fetchRequest(request), threadId, { action }))
}

/** The stored messages the head counts. Messages are never changed once stored, so any read up to `messageCount` is consistent. */
export function loadMessages(store: ThreadStore, head: ThreadHead): Promise<readonly ThreadMessage[]> {
  return head.messageCount === 0 ? Promise.resolve([]) : store.messages(head.id, 0, head.messageCount)
}

/** A change to a thread: the fields of its head to set, and messages to append. Made by a transition (transitions.ts), written by the thread writer (writer/). */
export interface ThreadChange {
  readonly head: Partial<Omit<ThreadHead, 'id' | 'version' | 'messageCount' | 'bytes' | 'createdAt' | 'updatedAt'>>
  readonly append?: readonly ThreadMessage[]
  /** Decision records this change explains, written in the same compare-and-set; `head.decisions` is their new tip. */
  readonly decisions?: readonly DecisionRecord[]
}

/** Whether a live run holds the thread: one that renewed its lease within `leaseMs`. */
export function isRunning(head: ThreadHead, leaseMs: number): boolean {
  const { activeRun } = head
  return activeRun !== undefined && Date.now() - activeRun.renewedAt < leaseMs
}

/**
 * `running` while a live run holds the thread; `interrupted` while calls wait for answers; else
 * `idle`, which includes a step whose every answer is stored but whose run was lost (a new
 * message settles it; replaying one of its answers re-drives it).
 */
export function threadStatus(head: ThreadHead, leaseMs: number): ThreadStatus {
  if (isRunning(head, leaseMs)) return 'running'
  return unanswered(head.step).length > 0 ? 'interrupted' : 'idle'
}

/** What a reloaded page needs to continue: the history, the open step, the answers it holds, and what is still waiting for an answer. */
export function snapshot(
  head: ThreadHead,
  messages: readonly ThreadMessage[],
  leaseMs: number,
  tools: ToolRegistry,
  page?: { readonly window: ThreadWindow; readonly withStep: boolean },
): ThreadSnapshot {
  const status = threadStatus(head, leaseMs)
  if (status === 'running' && head.activeRun && !page) {
    // Mid-run, the thread as the run began: a client replays the run's events over it.
    const { runId, fromMessage, resumed } = head.activeRun
    const resumedStep = resumed ? (messages[fromMessage] ?? head.step?.message) : undefined
    return { threadId: head.id, status, runId, messages: [...messages.slice(0, fromMessage), ...(resumedStep ? [resumedStep] : [])], interrupts: [] }
  }
  const step = page && !page.withStep ? undefined : head.step
  const lastRunError = status === 'running' ? undefined : lastFailure(head)
  const answers = step && status !== 'running' ? recordedAnswers(step) : []
  return {
    threadId: head.id,
    status,
    messages: step ? [...messages, step.message, ...step.results] : messages,
    interrupts: status === 'running' ? [] : unanswered(head.step).map((interrupt) => toWire(interrupt, tools)),
    ...(lastRunError ? { lastRunError } : {}),
    ...(answers.length > 0 ? { answers } : {}),
    ...(page ? { window: page.window } : {}),
  }
}

/** How the last run failed: as its release recorded, or lost when it still holds the thread past its lease (it never let go). */
function lastFailure(head: ThreadHead): RunFailure | undefined {
  if (head.activeRun) return { runId: head.activeRun.runId, code: 'RUN_LOST', message: RUN_LOST_MESSAGE }
  return head.lastRunError
}

const RUN_LOST_MESSAGE = 'The run stopped without finishing; the next message continues from what the thread holds'
