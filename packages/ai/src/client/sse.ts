/**
 * Reads a Server-Sent Events body and yields the `data` of each event (lines joined by `\n`, as
 * the spec says). Other fields and comments are skipped. Lines may be cut anywhere between chunks,
 * even inside a UTF-8 sequence or between `\r` and `\n`; each chunk is scanned once.
 */
export async function* readSseData(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<string, void, undefined> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const lines = new SseLines()
  // Cancelling ends a pending read at once, even when the body's producer ignores the abort.
  const cancel = () => void reader.cancel().catch(() => {})
  signal?.addEventListener('abort', cancel, { once: true })
  if (signal?.aborted) cancel()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true })
      yield* lines.push(text)
      if (done) return
    }
  } finally {
    // Reached when the consumer stops early, too: release the connection.
    signal?.removeEventListener('abort', cancel)
    cancel()
  }
}

/** The line-level state kept between chunks. */
class SseLines {
  #partial = ''
  #data: string[] = []
  #skipLf = false;

  *push(text: string): Generator<string, void, undefined> {
    let start = 0
    if (this.#skipLf && text.startsWith('\n')) start = 1
    this.#skipLf = false
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (code !== 0x0a && code !== 0x0d) continue
      const line = this.#partial + text.slice(start, i)
      this.#partial = ''
      if (code === 0x0d) {
        if (i + 1 === text.length) this.#skipLf = true
        else if (text.charCodeAt(i + 1) === 0x0a) i++
      }
      start = i + 1
      const event = this.#line(line)
      if (event !== undefined) yield event
    }
    if (start < text.length) this.#partial += text.slice(start)
  }

  /** Handles one line; returns the event's data when the line ends an event. */
  #line(line: string): string | undefined {
    if (line === '') {
      if (this.#data.length === 0) return undefined
      const data = this.#data.join('\n')
      this.#data = []
      return data
    }
    if (line.startsWith('data:')) this.#data.push(line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5))
    else if (line === 'data') this.#data.push('')
    return undefined
  }
}
