import type { LoggedEvent } from '../thread/threadStore.ts'

// One run's events in an in-process log (memory.ts's `memoryEventLog`), packed: the JSON of each
// as UTF-8, end to end in one byte buffer, with where each ends and its `seq`. Kept as a string
// and an object apiece, every event a run streams (one per model delta) outlived the young
// generation while the run lasted and the log was kept after it (30 s by default), so each was
// copied twice by its collections and then marked by every full one: with a streaming turn, most
// of what the collector did. Bytes in typed arrays live outside the JS heap and cost it nothing;
// each event is encoded once on the way in (one `encodeInto`, cheaper than the copies it saves)
// and decoded only when read (a replay, a reconnect), which is rare.
//
// The text is JSON, which `JSON.stringify` makes well-formed UTF-16 (a lone surrogate is escaped),
// so it comes back exactly as it went in.

const encoder = new TextEncoder()
/** `ignoreBOM`: a leading U+FEFF is text to give back, not a mark to drop. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })

/** Start sizes, doubled as a run's log grows: a short turn's events fit without a copy. */
const FIRST_BYTES = 2048
const FIRST_EVENTS = 32

export class PackedEvents {
  #bytes = new Uint8Array(FIRST_BYTES)
  #used = 0
  /** Where each event's JSON ends in `#bytes`. */
  #ends = new Uint32Array(FIRST_EVENTS)
  #seqs = new Uint32Array(FIRST_EVENTS)
  #length = 0

  get length(): number {
    return this.#length
  }

  push({ seq, data }: LoggedEvent): void {
    // At most 3 bytes of UTF-8 per UTF-16 unit.
    if (this.#used + data.length * 3 > this.#bytes.length) this.#bytes = grown(this.#bytes, this.#used + data.length * 3, this.#used)
    if (this.#length === this.#ends.length) {
      this.#ends = grown(this.#ends, this.#length + 1, this.#length)
      this.#seqs = grown(this.#seqs, this.#length + 1, this.#length)
    }
    this.#used += encoder.encodeInto(data, this.#bytes.subarray(this.#used)).written
    this.#ends[this.#length] = this.#used
    this.#seqs[this.#length++] = seq
  }

  /** No more events come (the run ended): the buffers shrink to what they hold, for the time the log is kept. */
  trim(): void {
    this.#bytes = this.#bytes.slice(0, this.#used)
    this.#ends = this.#ends.slice(0, this.#length)
    this.#seqs = this.#seqs.slice(0, this.#length)
  }

  /** The events from index `from` up to `to` (not included), as they were pushed. */
  slice(from: number, to: number): LoggedEvent[] {
    const events: LoggedEvent[] = []
    for (let index = from; index < Math.min(to, this.#length); index++) {
      const start = index === 0 ? 0 : this.#ends[index - 1]!
      events.push({ seq: this.#seqs[index]!, data: decoder.decode(this.#bytes.subarray(start, this.#ends[index])) })
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
