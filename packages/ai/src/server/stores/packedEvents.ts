import type { LoggedEvent } from '../thread/threadStore.ts'

// One run's events in an in-process log (memory.ts's `memoryEventLog`), packed: the JSON of each
// as UTF-8, end to end in one byte buffer, with where each ends. Kept as a string and an object
// apiece, every event a run streams (one per model delta) outlived the young generation while the
// run lasted and the log was kept after it (30 s by default), so each was copied twice by its
// collections and then marked by every full one: with a streaming turn, most of what the collector
// did. Bytes in typed arrays live outside the JS heap and cost it nothing; each event is encoded
// once on the way in and decoded only when read (a replay, a reconnect).
//
// The text is JSON, which `JSON.stringify` makes well-formed UTF-16 (a lone surrogate is escaped),
// so it comes back exactly as it went in.

const encoder = new TextEncoder()
/** `ignoreBOM`: a leading U+FEFF is text to give back, not a mark to drop. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/** Start sizes, doubled as a run's log grows: a short turn's events fit as they are. */
const FIRST_BYTES = 2048
const FIRST_EVENTS = 32

export class PackedEvents {
  #bytes = new Uint8Array(FIRST_BYTES)
  #used = 0
  /** Where each event's JSON ends in `#bytes`. */
  #ends = new Uint32Array(FIRST_EVENTS)
  #length = 0
  #firstSeq = 0
  /** Each event's `seq`, only once one did not follow the one before (the runtime numbers a run's events 1, 2, 3, ...). */
  #seqs: number[] | undefined

  get length(): number {
    return this.#length
  }

  push({ seq, data }: LoggedEvent): void {
    if (this.#length === this.#ends.length) this.#ends = grown(this.#ends, this.#length + 1, this.#length)
    this.#numbered(seq)
    if (this.#used + data.length > this.#bytes.length) this.#bytes = grown(this.#bytes, this.#used + data.length, this.#used)
    // ASCII (JSON's own characters, and often all of the text) byte for byte: no view and no call
    // into the runtime per event, which cost half as much again.
    const bytes = this.#bytes
    let at = this.#used
    let index = 0
    for (; index < data.length; index++) {
      const code = data.charCodeAt(index)
      if (code > 0x7f) break
      bytes[at++] = code
    }
    this.#used = at
    if (index < data.length) this.#encode(data.slice(index))
    this.#ends[this.#length++] = this.#used
  }

  /** Text past the ASCII, as UTF-8: at most 3 bytes per UTF-16 unit. */
  #encode(text: string): void {
    if (this.#used + text.length * 3 > this.#bytes.length) this.#bytes = grown(this.#bytes, this.#used + text.length * 3, this.#used)
    this.#used += encoder.encodeInto(text, this.#bytes.subarray(this.#used)).written
  }

  #numbered(seq: number): void {
    if (this.#seqs) this.#seqs.push(seq)
    else if (this.#length === 0) this.#firstSeq = seq
    else if (seq !== this.#firstSeq + this.#length) this.#seqs = [...Array.from({ length: this.#length }, (_, index) => this.#firstSeq + index), seq]
  }

  /** No more events come (the run ended): the buffers shrink to what they hold, for the time the log is kept, when a quarter or more of them is free. */
  trim(): void {
    if (this.#used <= (this.#bytes.length * 3) / 4) this.#bytes = this.#bytes.slice(0, this.#used)
    if (this.#length <= (this.#ends.length * 3) / 4) this.#ends = this.#ends.slice(0, this.#length)
  }

  /** The events from index `from` up to `to` (not included), as they were pushed. */
  slice(from: number, to: number): LoggedEvent[] {
    const events: LoggedEvent[] = []
    for (let index = from; index < Math.min(to, this.#length); index++) {
      const start = index === 0 ? 0 : this.#ends[index - 1]!
      events.push({ seq: this.#seqs ? this.#seqs[index]! : this.#firstSeq + index, data: decoder.decode(this.#bytes.subarray(start, this.#ends[index])) })
    }
    return events
  }
}

/** `array` in one at least twice as long, holding at least `needed`, with its first `used` items. */
function grown<T extends Uint8Array | Uint32Array>(array: T, needed: number, used: number): T {
  const next = new (array.constructor as new (length: number) => T)(Math.max(needed, array.length * 2))
  next.set(array.subarray(0, used))
  return next
}
