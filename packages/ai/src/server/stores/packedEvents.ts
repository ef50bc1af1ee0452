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
/** Code units `String.fromCharCode` is given in one call: its arguments go on the stack. */
const MAX_UNITS = 8192

export class PackedEvents {
  /** The events' JSON, `CHUNK` events a string, in order; none once the run ended (`#text` then holds them all). */
  #chunks: string[] | undefined = []
  /** Where each joined event's JSON ends within its chunk (none once the run ended: `#endsAt` then says). */
  #ends: number[] | undefined = []
  /** The events after the last chunk, not yet joined (none once the run ended). */
  #rest: string[] | undefined = []
  /**
   * Once the run ended: every event's JSON, and where each ends in it, two UTF-16 code units an event
   * (the high 16 bits, then the low). An ended log is kept 30 s by default, every full collection
   * marking it all that while: two strings, no pointers inside them, not a list of chunks, an array
   * of numbers the collector visits slot by slot, and the arrays that fed them.
   */
  #text = ''
  #endsAt = ''
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

  /**
   * `push`es `events`, then `end`s the log. A log that has no events yet and gets them all at once
   * (a run whose events all ride its last write, as the memory store's do) is packed from them
   * directly: one list of their JSON to join and one of their ends, not the chunk and its ends grown
   * event by event and then copied out again.
   */
  endWith(events: readonly LoggedEvent[]): void {
    const count = events.length
    if (this.#length > 0 || this.#chunks === undefined || count === 0 || 2 * count > MAX_UNITS) return this.#endAfter(events)
    const first = events[0]!.seq
    const data = new Array<string>(count)
    const units = new Array<number>(2 * count)
    let end = 0
    for (let index = 0; index < count; index++) {
      const event = events[index]!
      // Numbered out of order (never by the runtime): pushed one by one, which keeps each `seq`.
      if (event.seq !== first + index) return this.#endAfter(events)
      data[index] = event.data
      end += event.data.length
      units[2 * index] = Math.floor(end / 65536)
      units[2 * index + 1] = end % 65536
    }
    this.#firstSeq = first
    this.#length = count
    this.#text = data.join('')
    this.#endsAt = String.fromCharCode.apply(null, units)
    this.#chunks = undefined
    this.#ends = undefined
    this.#rest = undefined
  }

  #endAfter(events: readonly LoggedEvent[]): void {
    for (const event of events) this.push(event)
    this.end()
  }

  /** No more events come (the run ended): the log kept is one string and where each event ends in it. */
  end(): void {
    const chunks = this.#chunks
    if (chunks === undefined) return
    if (this.#rest!.length > 0) this.#join()
    const ends = this.#ends!
    // Each event's end within the whole text (a chunk's ends are within it), in pieces: `String.fromCharCode` takes its code units as arguments.
    const pieces: string[] = []
    let units: number[] = new Array(Math.min(MAX_UNITS, 2 * ends.length))
    let count = 0
    let offset = 0
    for (let index = 0; index < ends.length; index++) {
      if (index > 0 && index % CHUNK === 0) offset += chunks[index / CHUNK - 1]!.length
      const end = offset + ends[index]!
      units[count++] = Math.floor(end / 65536)
      units[count++] = end % 65536
      if (count === units.length && index + 1 < ends.length) {
        pieces.push(String.fromCharCode(...units))
        units = new Array(Math.min(MAX_UNITS, 2 * (ends.length - index - 1)))
        count = 0
      }
    }
    // Most logs are one piece: not joined again.
    const last = String.fromCharCode(...units)
    if (pieces.length > 0) pieces.push(last)
    this.#endsAt = pieces.length === 0 ? last : pieces.join('')
    this.#text = chunks.length === 1 ? chunks[0]! : chunks.join('')
    this.#chunks = undefined
    this.#ends = undefined
    this.#rest = undefined
  }

  /** The events from index `from` up to `to` (not included), as they were pushed. */
  slice(from: number, to: number): LoggedEvent[] {
    const events: LoggedEvent[] = []
    const chunks = this.#chunks
    const ends = this.#ends ?? []
    const joined = ends.length
    for (let index = from; index < Math.min(to, this.#length); index++) {
      const seq = this.#seqs ? this.#seqs[index]! : this.#firstSeq + index
      if (chunks === undefined) events.push({ seq, data: this.#text.slice(index === 0 ? 0 : this.#endAt(index - 1), this.#endAt(index)) })
      else if (index >= joined) events.push({ seq, data: this.#rest![index - joined]! })
      else events.push({ seq, data: chunks[Math.floor(index / CHUNK)]!.slice(index % CHUNK === 0 ? 0 : ends[index - 1], ends[index]) })
    }
    return events
  }

  /** Where the event at `index` ends in `#text` (the run ended). */
  #endAt(index: number): number {
    return this.#endsAt.charCodeAt(2 * index) * 65536 + this.#endsAt.charCodeAt(2 * index + 1)
  }

  #add(data: string): void {
    this.#rest!.push(data)
    if (this.#rest!.length === CHUNK) this.#join()
  }

  #join(): void {
    let end = 0
    for (const data of this.#rest!) this.#ends!.push((end += data.length))
    this.#chunks!.push(this.#rest!.join(''))
    this.#rest = []
  }

  /** The ended log as chunks again, its events as they were pushed. */
  #reopen(): void {
    const events = this.slice(0, this.#length)
    this.#chunks = []
    this.#rest = []
    this.#ends = []
    this.#text = ''
    this.#endsAt = ''
    for (const event of events) this.#add(event.data)
  }
}
