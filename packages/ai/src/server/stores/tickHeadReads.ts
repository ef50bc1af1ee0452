import type { ThreadHead } from '../thread/threadStore.ts'

type HeadAnswer = Promise<ThreadHead | undefined>

/**
 * Reads of a thread's head that ride its next commit (Redis and PostgreSQL). A claim on the head
 * this instance wrote last reads the stored head in the tick it sends the claim
 * (thread/cachedClaim.ts), for a miss to go on from: the read waits for the end of the tick, and
 * when a commit of the thread was sent meanwhile, that commit's answer is the read's (its head when
 * it wrote, else the head it found). Either was the stored head at some point after the read was
 * asked, as a command of its own would have found, and it costs none. Else `readHead` sends it alone.
 */
export function tickHeadReads(readHead: (threadId: string) => HeadAnswer) {
  const asked = new Map<string, { readonly answer: HeadAnswer; settle(answer: HeadAnswer): void }>()
  return {
    read(threadId: string): HeadAnswer {
      const waiting = asked.get(threadId)
      if (waiting) return waiting.answer
      let settle!: (answer: HeadAnswer) => void
      const read = { answer: new Promise<ThreadHead | undefined>((resolve) => (settle = resolve)), settle: (answer: HeadAnswer) => settle(answer) }
      asked.set(threadId, read)
      queueMicrotask(() => {
        if (asked.get(threadId) !== read) return
        asked.delete(threadId)
        read.settle(readHead(threadId))
      })
      return read.answer
    },
    /**
     * The read of this thread waiting for its tick, taken by a commit sent now: `answer` gives the
     * read the commit's answer (the stored head it found, or `undefined` for none) once it comes,
     * and on a failed commit the read goes alone. Undefined when no read waits.
     */
    take(threadId: string): ((commit: Promise<ThreadHead | undefined>) => void) | undefined {
      const read = asked.get(threadId)
      if (!read) return undefined
      asked.delete(threadId)
      return (commit) => read.settle(commit.catch(() => readHead(threadId)))
    },
  }
}
