import type { ThreadMessage } from '../../../protocol/messages.ts'
import { atTurnEnd } from '../../../util/turnBatch.ts'
import type { ThreadChange } from '../thread.ts'
import type { ThreadHead } from '../threadStore.ts'
import { nextHead, NO_MESSAGES, type CarriedEvents, type MeasuredAppend } from './commit.ts'

// Group commit: the writes a run asks for while one is not yet made go out as one commit.

/** A write of a run: the change a transition makes of the head as the write before it leaves it, with the messages appended since. */
export type RunTransition = (head: ThreadHead, append: readonly ThreadMessage[]) => ThreadChange
/** A write whose change needs I/O to be made (decision records chained on the head's tip). */
export type AsyncRunTransition = (head: ThreadHead, append: readonly ThreadMessage[]) => Promise<ThreadChange>

/** Writes asked for and not yet made, to go out as one commit. */
export interface Batch {
  /** Every part a `RunTransition` unless `async` (a part asked through `writeAsync`). */
  readonly parts: (RunTransition | AsyncRunTransition)[]
  async: boolean
  /** The run's last events, when its release is one of the parts. */
  last: CarriedEvents | undefined
  /** Held for the loop's turn (opened by a write nobody waits for), not yet handed to the writer. */
  held: boolean
  /** Settles with the batch's commit, once it is handed to the writer. */
  promise: Promise<void> | undefined
  /** What the held write that opened the batch does if the commit fails. */
  failed: ((error: unknown) => void) | undefined
}

/** A batch of one write of its own, never joined (the heartbeat). */
export function alone(transition: RunTransition): Batch {
  return { parts: [transition], async: false, last: undefined, held: false, promise: undefined, failed: undefined }
}

/**
 * The batch a write joins: the one asked for and not yet made, if any (it is closed once it is
 * made), else one of its own. A write somebody waits for is handed to the writer (`send`) at once,
 * behind the one before; one nobody waits for (`hold`) waits for the end of the event loop's turn
 * (util/turnBatch.ts), so that the writes asked meanwhile go out with it.
 */
export class GroupCommit {
  readonly #send: (batch: Batch) => Promise<void>
  #open: Batch | undefined

  constructor(send: (batch: Batch) => Promise<void>) {
    this.#send = send
  }

  /** No write waits to be made. */
  get idle(): boolean {
    return !this.#open
  }

  ask(part: RunTransition | AsyncRunTransition, async: boolean, last: CarriedEvents | undefined): Promise<void> {
    const open = this.#open
    if (open) {
      open.parts.push(part)
      open.async ||= async
      if (last) open.last = last
      // Someone waits for this write: a batch held for the loop's turn goes now.
      if (open.held) this.#flush(open)
      return open.promise!
    }
    const batch: Batch = { parts: [part], async, last, held: false, promise: undefined, failed: undefined }
    this.#open = batch
    return (batch.promise = this.#send(batch))
  }

  hold(part: RunTransition, failed: (error: unknown) => void): void {
    const open = this.#open
    if (open) {
      open.parts.push(part)
      if (!open.held) return void open.promise!.catch(failed)
      const before = open.failed
      open.failed = before ? (error) => (before(error), failed(error)) : failed
      return
    }
    const batch: Batch = { parts: [part], async: false, last: undefined, held: true, promise: undefined, failed }
    this.#open = batch
    atTurnEnd(() => {
      if (batch.held) this.#flush(batch)
    })
  }

  /** The batch is being made: a write asked from here on opens the next. */
  close(batch: Batch): void {
    if (this.#open === batch) this.#open = undefined
  }

  #flush(batch: Batch): void {
    batch.held = false
    batch.promise = this.#send(batch)
    batch.promise.catch(batch.failed!)
  }
}

/**
 * The one change of a batch's transitions, each made of the head the one before leaves: the fields
 * of the last that set them, the messages (all the batch's, with the first part) and decision
 * records of all. For a batch with no asynchronous part (`madeAsync` for one with some).
 */
export function made(batch: Batch, head: ThreadHead, append: readonly ThreadMessage[], measured?: MeasuredAppend): ThreadChange {
  const parts = batch.parts as readonly RunTransition[]
  if (parts.length === 1) return parts[0]!(head, append)
  let sum: ThreadChange | undefined
  for (let index = 0; index < parts.length; index++) {
    const change = parts[index]!(head, index === 0 ? append : NO_MESSAGES)
    sum = joined(sum, change)
    if (index + 1 < parts.length) head = nextHead(head, change, measured)
  }
  return sum!
}

/** `made` for a batch with an asynchronous part: the parts are waited for in order. */
export async function madeAsync(batch: Batch, head: ThreadHead, append: readonly ThreadMessage[], measured?: MeasuredAppend): Promise<ThreadChange> {
  const { parts } = batch
  let sum: ThreadChange | undefined
  for (let index = 0; index < parts.length; index++) {
    const change = await parts[index]!(head, index === 0 ? append : NO_MESSAGES)
    sum = joined(sum, change)
    if (index + 1 < parts.length) head = nextHead(head, change, measured)
  }
  return sum!
}

function joined(sum: ThreadChange | undefined, change: ThreadChange): ThreadChange {
  if (!sum) return change
  // Lists are joined only when both parts have some (a later part appends nothing: its messages went with the first).
  const joinedChange: { -readonly [K in keyof ThreadChange]: ThreadChange[K] } = { head: joinedHeads(sum.head, change.head), append: both(sum.append, change.append) ?? NO_MESSAGES }
  const decisions = both(sum.decisions, change.decisions)
  if (decisions && decisions.length > 0) joinedChange.decisions = decisions
  return joinedChange
}

/**
 * The head change of two parts, the later's keys winning. A turn's last commit joins the closed
 * step's save and the release, which sets every key the save set: then the later part's own head
 * change is the join, and no object is grown key by key (Object.assign onto `{}`) for it.
 */
function joinedHeads(first: ThreadChange['head'], second: ThreadChange['head']): ThreadChange['head'] {
  let covered = true
  for (const key in first) {
    if (!(key in second)) {
      covered = false
      break
    }
  }
  return covered ? second : Object.assign({}, first, second)
}

function both<T>(first: readonly T[] | undefined, second: readonly T[] | undefined): readonly T[] | undefined {
  if (!second || second.length === 0) return first
  if (!first || first.length === 0) return second
  return [...first, ...second]
}
