import type { LoggedEvent } from '../thread/threadStore.ts'

// One run's events in an in-process log (memory.ts's `memoryEventLog`), packed: the JSON of every
// 64 events joined in one string, with where each ends in it. Kept as a string and an object
// apiece, every event a run streams (one per model delta) outlived the young generation while the
// run lasted and the log was kept after it (30 s by default): each was copied twice by the young
// generation's collections, then marked by every full one, which with a streaming turn was most of
// what the collector did. Joined, an event's text is copied once, 64 events are one object to the
// collector, and an event read back (a replay, a reconnect) is a slice of its chunk. (UTF-8 in
// typed arrays, off the JS heap, cost more: encoding each event took longer than joining it.)

/** Events per chunk: few enough that those not yet joined are a small part of what a collection copies. */
const CHUNK = 64

export class PackedEvents {
  /** The events' JSON, `CHUNK` events a string (the last one fewer once the run ended), in order. */
  readonly #chunks: string[] = []
  /** Where each joined event's JSON ends within its chunk. */
  readonly #ends: number[] = []
  /** The events after the last chunk, not yet joined. */
  #rest: string[] = []
  #length = 0
  #firstSeq = 0
  /** Each event's `seq`, only once one did not follow the one before (the runtime numbers a run's events 1, 2, 3, ...). */
  #seqs: number[] | undefined

  get length(): number {
    return this.#length
  }

  push({ seq, data }: LoggedEvent): void {
    // An event after the run's end (rare): its short last chunk is taken apart again, so every chunk but the last stays full.
    if (this.#ends.length % CHUNK !== 0) this.#rest = this.#unjoin()
    if (this.#seqs) this.#seqs.push(seq)
    else if (this.#length === 0) this.#firstSeq = seq
    else if (seq !== this.#firstSeq + this.#length) this.#seqs = [...Array.from({ length: this.#length }, (_, index) => this.#firstSeq + index), seq]
    this.#length++
    this.#rest.push(data)
    if (this.#rest.length === CHUNK) this.#join()
  }

  /** No more events come (the run ended): those not yet joined are, so the log kept is a few strings. */
  end(): void {
    if (this.#rest.length > 0) this.#join()
  }

  /** The events from index `from` up to `to` (not included), as they were pushed. */
  slice(from: number, to: number): LoggedEvent[] {
    const events: LoggedEvent[] = []
    const joined = this.#ends.length
    for (let index = from; index < Math.min(to, this.#length); index++) {
      const seq = this.#seqs ? this.#seqs[index]! : this.#firstSeq + index
      if (index >= joined) events.push({ seq, data: this.#rest[index - joined]! })
      else events.push({ seq, data: this.#chunks[Math.floor(index / CHUNK)]!.slice(index % CHUNK === 0 ? 0 : this.#ends[index - 1], this.#ends[index]) })
    }
    return events
  }

  #join(): void {
    let end = 0
    for (const data of this.#rest) this.#ends.push((end += data.length))
    this.#chunks.push(this.#rest.join(''))
    this.#rest = []
  }

  /** The last chunk's events, as they were before it was joined. */
  #unjoin(): string[] {
    const first = this.#ends.length - (this.#ends.length % CHUNK)
    const rest = this.slice(first, this.#length).map((event) => event.data)
    this.#chunks.pop()
    this.#ends.length = first
    return rest
  }
}
