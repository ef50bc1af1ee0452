import type { ThreadMessage } from '../../protocol/messages.ts'
import { deepFreeze } from '../../util/deepFreeze.ts'
import { withCommit, type ThreadCommit, type ThreadHead, type ThreadStore } from './threadStore.ts'

// What this instance knows of the threads it wrote last: for each, the head of its last commit the
// store acknowledged and the stored messages that head counts. Every entry is a fact that stays
// true ("the messages stored under head H are M": messages never change once stored), so a run
// whose head is H (the same head: by JSON text, as the stores compare heads for
// `ThreadCommit.follows`) takes its history from here instead of reading it, whatever happened to
// the thread since; a head of another thread made again under the same id differs (`createdAt`).
// An entry grows only by a commit the store acknowledged on that very head; anything uncertain (a
// failed or unanswered commit, a conflict) drops it.

/**
 * Bounds, fixed so memory stays predictable: 1,000 threads and 16 MB of stored messages (their
 * JSON size, as heads count it; parsed, about 1.5 times that in the heap for chat text in Latin
 * script, up to about 3 times for text V8 keeps at two bytes a character: 25 to 50 MB at most).
 * That holds a busy instance's recent threads at typical sizes, or two threads at the default
 * `maxThreadBytes` (8 MB); a thread larger than the whole cache is never kept. The least recently
 * used go first.
 */
export const THREAD_CACHE_MAX_THREADS = 1_000
export const THREAD_CACHE_MAX_BYTES = 16 * 1024 * 1024

interface Entry {
  readonly head: ThreadHead
  /** The stored messages `head` counts, each frozen: shared with the runs that take them, as the memory store shares its own. */
  readonly messages: ThreadMessage[]
}

export class ThreadCache {
  readonly #entries = new Map<string, Entry>()
  /** Per thread, the last commit sent whose answer is not yet taken into the entries. */
  readonly #answers = new Map<string, Promise<void>>()
  /** The kept messages' size, as their heads count it. */
  #bytes = 0

  /** The head of the thread's last commit this instance made and the store acknowledged, if it is still kept. */
  lastHead(threadId: string): ThreadHead | undefined {
    return this.#use(threadId)?.head
  }

  /** The stored messages `head` counts, when it is the head kept for its thread (a copy: the entry grows with later commits). */
  history(head: ThreadHead): readonly ThreadMessage[] | undefined {
    const entry = this.#use(head.id)
    return entry && sameHead(entry.head, head) ? entry.messages.slice(0, head.messageCount) : undefined
  }

  /** Keeps `messages`, just read or written, as what `head` counts (a run's history once its claim landed). */
  remember(head: ThreadHead, messages: readonly ThreadMessage[]): void {
    if (messages.length !== head.messageCount || this.#entries.get(head.id)?.head === head) return
    for (const message of messages) deepFreeze(message)
    this.#keep({ head, messages: [...messages] })
  }

  /** Drops what is kept of the thread: its last write's outcome is unknown, or another writer's head came first. */
  forget(threadId: string): void {
    const entry = this.#entries.get(threadId)
    if (!entry) return
    this.#entries.delete(threadId)
    this.#bytes -= entry.head.bytes
  }

  /**
   * `store` with every commit watched: one the store acknowledged on the kept head (the head it
   * `follows`, or of the version before in the same thread: a version is written once) extends
   * the entry, a new thread starts one, and a commit refused or failed drops it. The one writer of
   * the entries besides `remember`.
   */
  observe(store: ThreadStore): ThreadStore {
    return withCommit(store, (commit) => {
      // Frozen on the way out, as the memory store freezes them: a message changed after it was sent would make the kept history wrong.
      for (const message of commit.append) deepFreeze(message)
      const { id } = commit.head
      const answer = store.commit(commit)
      // Handled at once: it may fail while an earlier commit's answer is still awaited, before the
      // chain below reaches it (the caller still gets the failure, through the chain).
      answer.catch(() => {})
      // Taken in the order they were sent: on a pool, the answer to a write sent behind another
      // may come first, and the entry must have grown by the one it follows before it grows by it.
      // The caller is answered once it is taken (a later commit of the thread waits for the earlier).
      const taken = (this.#answers.get(id) ?? Promise.resolve()).then(() =>
        answer.then(
          (written) => (written ? this.#written(commit) : this.forget(id)),
          () => this.forget(id),
        ),
      )
      this.#answers.set(id, taken)
      return taken.then(() => {
        if (this.#answers.get(id) === taken) this.#answers.delete(id)
        return answer
      })
    })
  }

  #written({ head, append, follows }: ThreadCommit): void {
    if (head.version === 1) return this.#keep({ head, messages: [...append] })
    const entry = this.#entries.get(head.id)
    const onKept = entry && (follows ? follows === entry.head : entry.head.version === head.version - 1 && entry.head.createdAt === head.createdAt)
    if (!entry || !onKept || entry.messages.length + append.length !== head.messageCount) return this.forget(head.id)
    // Grown in place: `history` hands out copies, so no one else holds this array.
    entry.messages.push(...append)
    this.#keep({ head, messages: entry.messages })
  }

  #keep(entry: Entry): void {
    const { id } = entry.head
    this.forget(id)
    if (entry.head.bytes > THREAD_CACHE_MAX_BYTES) return
    this.#entries.set(id, entry)
    this.#bytes += entry.head.bytes
    // A Map iterates in insertion order: the least recently used first.
    for (const [oldest] of this.#entries) {
      if (this.#entries.size <= THREAD_CACHE_MAX_THREADS && this.#bytes <= THREAD_CACHE_MAX_BYTES) break
      this.forget(oldest)
    }
  }

  #use(threadId: string): Entry | undefined {
    const entry = this.#entries.get(threadId)
    if (!entry) return undefined
    this.#entries.delete(threadId)
    this.#entries.set(threadId, entry)
    return entry
  }
}

/** The same head: the same object, or the same JSON text (a head read back from the store). */
export function sameHead(a: ThreadHead, b: ThreadHead): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}
