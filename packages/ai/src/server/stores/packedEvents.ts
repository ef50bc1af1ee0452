import type { LoggedEvent } from '../thread/threadStore.ts'

// One run's events in an in-process log (memory.ts's `memoryEventLog`), packed: the JSON of every
// 64 events joined in one string, with where each ends in it. Kept as a string and an object
// apiece, every event a run streams (one per model delta) outlived the young generation while the
// run lasted and the log was kept after it (30 s by default): each was copied twice by the young
// generation's collections, then marked by every full one, which with a streaming turn was most of
// what the collector did. Joined, an event's text is copied once, 64 events are one object to the
// collector, and an event read back (a replay, a reconnect) is a slice of its chunk. Once the run
// ended, the chunks are one string. (UTF-8 in
// typed arrays, off the JS heap, cost more: encoding each event took longer than joining it.)

/** Events per chunk: few enough that those not yet joined are a small part of what a collection copies. */
const CHUNK = 64

export class PackedEvents {
  /** The events' JSON, `CHUNK` events a string, in order; none once the run ended (`#text` then holds them all). */
  #chunks: string[] | undefined = []
  /**
   * Where each joined event's JSON ends: within its chunk while the run lasts, within `#text` once it
   * ended (an ended log is kept 30 s by default, the collector marking it all that while: one string
   * and one array of numbers, not a list of chunks and the arrays that fed them).
   */
  readonly #ends: number[] = []
  /** The events after the last chunk, not yet joined (none once the run ended). */
  #rest: string[] | undefined = []
  /** Every event's JSON, once the run ended. */
  #text = ''
  #length = 0
  #firstSeq = 0
  /** Each event's `seq`, only once one did not follow the one before (the runtime numbers a run's events 1, 2, 3, ...). */
  #seqs: number[] | undefined

  get length(): number {
    return this.#length
  }

  push({ seq, data }: LoggedEvent): void {
    // An event after the run's end (rare): the log is taken apart into chunks again.
    if (this.#chunks === undefined) this.#reopen()
    if (this.#seqs) this.#seqs.push(seq)
    else if (this.#length === 0) this.#firstSeq = seq
    else if (seq !== this.#firstSeq + this.#length) this.#seqs = [...Array.from({ length: this.#length }, (_, index) => this.#firstSeq + index), seq]
    this.#length++
    this.#add(data)
  }

  /** No more events come (the run ended): the log kept is one string and where each event ends in it. */
  end(): void {
    const chunks = this.#chunks
    if (chunks === undefined) return
    if (this.#rest!.length > 0) this.#join()
    // Each chunk's ends are made relative to the whole text: the first chunk's already are.
    let offset = 0
    for (let chunk = 0; chunk < chunks.length; chunk++) {
      if (chunk > 0) for (let index = chunk * CHUNK; index < Math.min((chunk + 1) * CHUNK, this.#ends.length); index++) this.#ends[index]! += offset
      offset += chunks[chunk]!.length
    }
    this.#text = chunks.length === 1 ? chunks[0]! : chunks.join('')
    this.#chunks = undefined
    this.#rest = undefined
  }

  /** The events from index `from` up to `to` (not included), as they were pushed. */
  slice(from: number, to: number): LoggedEvent[] {
    const events: LoggedEvent[] = []
    const chunks = this.#chunks
    const joined = this.#ends.length
    for (let index = from; index < Math.min(to, this.#length); index++) {
      const seq = this.#seqs ? this.#seqs[index]! : this.#firstSeq + index
      if (chunks === undefined) events.push({ seq, data: this.#text.slice(index === 0 ? 0 : this.#ends[index - 1], this.#ends[index]) })
      else if (index >= joined) events.push({ seq, data: this.#rest![index - joined]! })
      else events.push({ seq, data: chunks[Math.floor(index / CHUNK)]!.slice(index % CHUNK === 0 ? 0 : this.#ends[index - 1], this.#ends[index]) })
    }
    return events
  }

  #add(data: string): void {
    this.#rest!.push(data)
    if (this.#rest!.length === CHUNK) this.#join()
  }

  #join(): void {
    let end = 0
    for (const data of this.#rest!) this.#ends.push((end += data.length))
    this.#chunks!.push(this.#rest!.join(''))
    this.#rest = []
  }

  /** The ended log as chunks again, its events as they were pushed. */
  #reopen(): void {
    const events = this.slice(0, this.#length)
    this.#chunks = []
    this.#rest = []
    this.#ends.length = 0
    this.#text = ''
    for (const event of events) this.#add(event.data)
  }
}
