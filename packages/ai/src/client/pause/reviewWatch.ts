import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { ThreadSnapshot } from '../../protocol/thread.ts'

/**
 * Approvals that wait for reviewers are decided elsewhere (a review link, another person's chat),
 * so no event of this client's tells it. The watch long-polls the thread (`GET ?watch=<version>`:
 * the server answers once the thread changes, or with 204 after a while) and reads it on each
 * change, until one of them is decided (an approval added, an interrupt gone, or a run resumed),
 * then calls `decided`. Anything the client does meanwhile ends it: `stop()`, or `idle()` false.
 */
/** The one read the watch makes (the run stream's `ask`): a GET of the thread with `query` added. */
interface ThreadReads {
  ask(threadId: string, query: string, signal: AbortSignal): Promise<Response>
}

/** The open interrupts (the pause's `interrupts()`): the watch looks only while one waits for reviewers. */
interface OpenInterrupts {
  interrupts(): readonly ToolInterrupt[]
}

export class ReviewWatch {
  readonly #stream: ThreadReads
  readonly #retryMs: number
  readonly #pause: OpenInterrupts
  #controller: AbortController | undefined

  /** `retryMs`: the pause after a failed ask (the server down, or one too old to watch: then it looks that often). */
  constructor(stream: ThreadReads, retryMs: number, pause: OpenInterrupts) {
    this.#stream = stream
    this.#retryMs = retryMs
    this.#pause = pause
  }

  /** (Re)starts the watch on the pause's interrupts as they stand now, if one waits for reviewers. */
  watch(threadId: string, idle: () => boolean, decided: () => void): void {
    this.stop()
    const interrupts = this.#pause.interrupts()
    if (!interrupts.some((interrupt) => interrupt.reviewers !== undefined)) return
    const controller = (this.#controller = new AbortController())
    void this.#follow(threadId, progressOf(interrupts), () => !controller.signal.aborted && idle(), decided, controller.signal)
  }

  stop(): void {
    this.#controller?.abort()
  }

  async #follow(threadId: string, before: string, idle: () => boolean, decided: () => void, signal: AbortSignal): Promise<void> {
    // Version 0 is answered at once with the current one, so a decision made before the watch began is seen too.
    let version = 0
    while (idle()) {
      const changed = await this.#changed(threadId, version, signal)
      if (!idle()) return
      if (changed === 'unchanged') continue
      try {
        const snapshot = (await (await this.#stream.ask(threadId, '', signal)).json()) as ThreadSnapshot
        if (!idle()) return
        if (snapshot.status === 'running' || progressOf(snapshot.interrupts) !== before) return decided()
        if (changed !== 'unknown') version = changed
      } catch {
        await pause(this.#retryMs, signal) // the next look may succeed
      }
    }
  }

  /** The thread's version once it changed; `unchanged` when the server's wait ended first; `unknown` after a failed ask (and a pause). */
  async #changed(threadId: string, version: number, signal: AbortSignal): Promise<number | 'unchanged' | 'unknown'> {
    try {
      const response = await this.#stream.ask(threadId, `&watch=${version}`, signal)
      if (response.status === 204) return 'unchanged'
      const body = (await response.json()) as { version?: unknown }
      if (typeof body.version === 'number') return body.version
    } catch {
      // below: pause, then look
    }
    await pause(this.#retryMs, signal)
    return 'unknown'
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
  })
}

/** What a decision changes: which interrupts wait, how many approvals each has, until when (an escalation sets a new expiry), and on what (an edit is a new proposal). */
function progressOf(interrupts: readonly ToolInterrupt[]): string {
  return JSON.stringify(interrupts.map((interrupt) => [interrupt.id, interrupt.approvals?.length ?? 0, interrupt.expiresAt, interrupt.proposedBy?.at]))
}
