import type { ThreadHead } from '../threadStore.ts'

// Writes whose answer was lost (the store failed while answering): they may have landed. The next
// write that reads the stored head finds out: where the run's own fields are as one of them left
// them, that one landed, and its messages are stored.

/** A write whose answer was lost: the head it would have written, and how far into the run's appended messages it wrote. */
export interface UncertainWrite {
  readonly next: ThreadHead
  readonly to: number
}

/** The latest of `uncertain` that `stored` shows landed, if any. */
export function landedOf(uncertain: readonly UncertainWrite[], stored: ThreadHead): UncertainWrite | undefined {
  for (let index = uncertain.length - 1; index >= 0; index--) {
    if (sameRunFields(uncertain[index]!.next, stored)) return uncertain[index]
  }
  return undefined
}

/** The fields only the run writes while it holds the thread (its messages, the decision records' tip, its lease): the same in both heads. */
export function sameRunFields(a: ThreadHead, b: ThreadHead): boolean {
  return (
    a.messageCount === b.messageCount &&
    a.bytes === b.bytes &&
    (a.decisions?.count ?? 0) === (b.decisions?.count ?? 0) &&
    a.activeRun?.runId === b.activeRun?.runId &&
    a.activeRun?.renewedAt === b.activeRun?.renewedAt
  )
}
