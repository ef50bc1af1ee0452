import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { ThreadSnapshot } from '../protocol/thread.ts'

/**
 * Approvals that wait for reviewers are decided elsewhere (a review link, another person's chat),
 * so no event tells this client. The watch looks at the thread until one of them is decided (an
 * approval added, an interrupt gone, or a run resumed), then calls `decided`. Anything the client
 * does meanwhile ends it: `stop()`, or `idle()` false at the next look.
 */
export class ReviewWatch {
  readonly #peek: (threadId: string) => Promise<ThreadSnapshot>
  readonly #intervalMs: number
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(peek: (threadId: string) => Promise<ThreadSnapshot>, intervalMs: number) {
    this.#peek = peek
    this.#intervalMs = intervalMs
  }

  watch(threadId: string, interrupts: readonly ToolInterrupt[], idle: () => boolean, decided: () => void): void {
    this.stop()
    if (!interrupts.some((interrupt) => interrupt.reviewers !== undefined)) return
    const before = progressOf(interrupts)
    this.#timer = setTimeout(async () => {
      if (!idle()) return
      try {
        const snapshot = await this.#peek(threadId)
        if (!idle()) return
        if (snapshot.status === 'running' || progressOf(snapshot.interrupts) !== before) decided()
        else this.watch(threadId, interrupts, idle, decided)
      } catch {
        this.watch(threadId, interrupts, idle, decided) // the next look may succeed
      }
    }, this.#intervalMs)
  }

  stop(): void {
    clearTimeout(this.#timer)
  }
}

/** What a decision changes: which interrupts wait, how many approvals each has, and until when (an escalation sets a new expiry). */
function progressOf(interrupts: readonly ToolInterrupt[]): string {
  return JSON.stringify(interrupts.map((interrupt) => [interrupt.id, interrupt.approvals?.length ?? 0, interrupt.expiresAt]))
}
