import type { ThreadMessage } from '../../../protocol/messages.ts'
import type { ThreadChange } from '../thread.ts'
import type { ThreadHead } from '../threadStore.ts'
import { nextHead, NO_MESSAGES, type CarriedEvents } from './commit.ts'

// Group commit: the writes a run asks for while one is not yet made go out as one commit.

/** A run's write of either kind (RunWriter's `write` or `writeAsync`). */
export type AnyTransition = (head: ThreadHead, append: readonly ThreadMessage[]) => ThreadChange | Promise<ThreadChange>

/** Writes asked for and not yet made, to go out as one commit (`RunWriter.#ask`). */
export interface Batch {
  readonly parts: AnyTransition[]
  /** One of the parts is asynchronous (a save with decisions to chain). */
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

/**
 * The one change of several transitions, each made of the head the one before leaves: the fields
 * of the last that set them, the messages (all the batch's, with the first part) and decision
 * records of all. Asynchronous parts are waited for in order.
 */
export function merged(parts: readonly AnyTransition[], from: number, head: ThreadHead, append: readonly ThreadMessage[], sum: ThreadChange | undefined): ThreadChange | Promise<ThreadChange> {
  for (let index = from; index < parts.length; index++) {
    const made = parts[index]!(head, index === 0 ? append : NO_MESSAGES)
    if (made instanceof Promise) return made.then((change) => merged(parts, index + 1, nextHead(head, change), append, joined(sum, change)))
    sum = joined(sum, made)
    if (index + 1 < parts.length) head = nextHead(head, made)
  }
  return sum!
}

function joined(sum: ThreadChange | undefined, change: ThreadChange): ThreadChange {
  if (!sum) return change
  const decisions = [...(sum.decisions ?? []), ...(change.decisions ?? [])]
  return { head: { ...sum.head, ...change.head }, append: [...(sum.append ?? []), ...(change.append ?? [])], ...(decisions.length > 0 ? { decisions } : {}) }
}

