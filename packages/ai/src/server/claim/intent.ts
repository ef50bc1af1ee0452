import type { ThreadMessage } from '../../protocol/messages.ts'
import type { MessageRequest, ResumeAnswer, ResumeRequest } from '../../protocol/requests.ts'
import type { OpenStep, StoredInterrupt, ThreadHead } from '../thread/threadStore.ts'
import type { ClaimedRun } from '../run/startRun.ts'

// What a claim is asked, whatever a client said it in. Each dialect at the edge (dialects/: AG-UI,
// the AI SDK's and TanStack's `useChat`; the compact protocol, edge/requests.ts) parses its request
// into one of these, and claims answer with data: a claimed run (run/startRun.ts starts it), the
// answers accepted while others wait, or nothing answered. The response is the dialect's to make.
//
// A client that keeps its own copy of the thread (AG-UI's `RunAgentInput.messages`) adds what the
// claim asks of it through `ClientThread`, the dialect's hooks: the claim never reads its shapes.

/** A new user message: a turn (claim/startTurn.ts). */
export type MessageIntent = MessageRequest & { readonly client?: ClientThread }

/** Answers to interrupts, a client's own answers (`client`), or none at all: a resume (claim/resume.ts). */
export type AnswersIntent = ResumeRequest & { readonly client?: ClientThread }

/** What a client that holds its own copy of the thread adds to a claim (dialects/agui/clientThread.ts). */
export interface ClientThread {
  /** The client chose the thread id: a message to an id no thread has makes the thread (AG-UI). */
  readonly choosesThreadId: true
  /** The client's id for its new message: stored under it unless the thread holds a message by that id. */
  readonly messageId?: string
  /** The request ends with an answer of the client's own (AG-UI: `messages` ends with a `tool` message). */
  readonly endsWithAnswer: boolean
  /**
   * Checks the history the client sent against the thread as the claim has it (`undefined`: the
   * thread is new), refusing one that contradicts it (409 `HISTORY_CONFLICT`); true when the client
   * is behind, so its run begins with the stored thread. Absent: the client sent no history.
   */
  readonly checkHistory?: (thread: StoredThread | undefined) => Promise<boolean>
  /**
   * The answers the client gives its own way (AG-UI: `tool` messages for calls that wait on the
   * browser) to what `step` waits on, apart from those `resumed` gives. `superseding`: a new message
   * comes with them, which settles every approval anyway.
   */
  answersFrom(step: OpenStep | undefined, resumed: readonly ResumeAnswer[], superseding?: boolean): ClientAnswers
  /** The refusal of an input whose own answers (it ends with one) answer nothing the thread waits for: a repeat (409 `INTERRUPT_ALREADY_ANSWERED`). */
  repeated(): Error
  /** The ids of the messages the client holds, in its order, for the snapshot a run begins with when it was behind (`userId`: its new message's, if stored under the client's id). */
  heldIds(userId?: string): string[]
}

/** The answers a client gave its own way, with where each came from. */
export interface ClientAnswers {
  readonly answers: readonly ResumeAnswer[]
  /** The step with each of these answers marked as the client's own message (its result keeps that message's id). */
  mark(step: OpenStep): OpenStep
  /** A refusal of `checkAnswers` (naming `resume[k]`) moved to where the client said it, when the answer was the `k - offset`th of these. */
  at(error: unknown, offset: number): unknown
}

/**
 * The thread a client's history is checked against: a head and exactly the stored messages it
 * counts, as the claim has them (the thread cache's, or read alongside the claim), so the check
 * waits for no read of its own.
 */
export interface StoredThread {
  readonly head: ThreadHead
  readonly messages: Promise<readonly ThreadMessage[]>
}

/** What a resume claimed: a run to start, answers stored while others wait, or nothing its input answers. */
export type Resumed =
  | { readonly run: ClaimedRun }
  | {
      /** Stored; `waiting` still waits. `runId`: the id minted for the claim that did not happen (a paused run's). */
      readonly accepted: { readonly threadId: string; readonly runId: string; readonly answered: readonly StoredInterrupt[]; readonly waiting: readonly StoredInterrupt[] }
    }
  | {
      /** A client's input with nothing new answers nothing the thread waits for: where the thread stands is its dialect's to tell. `read`: the stored head it was decided on, when one was read for it. */
      readonly nothing: { readonly read?: { readonly head: ThreadHead | undefined } }
    }
