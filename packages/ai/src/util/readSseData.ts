export interface ReadSseOptions {
  /**
   * At the end of the body, yield an event cut off before its blank line. The client drops it (a
   * run that ends that way broke off); model providers may close without the blank line.
   */
  readonly flushAtEnd: boolean
}

/**
 * A Server-Sent Events parser fed text as it arrives: calls `onEvent` with the `data` of each event
 * (lines joined by `\n`, as the spec says) and its `id` field. Other fields and comments are skipped.
 * Lines may be cut anywhere between pieces, even between `\r` and `\n`; each piece is scanned once.
 * `flush` at the body's end: an event cut off before its blank line still counts.
 * Used on a web stream (`readSseData`) and, on Node, on an `IncomingMessage`'s decoded chunks.
 */
export function sseParser(onEvent: (data: string, id: string | undefined) => void): (text: string, flush?: boolean) => void {
  // Plain locals rather than a class: private fields survive minification, and this ships to browsers.
  let partial = ''
  let skipLf = false
  let data: string[] = []
  let id: string | undefined
  return (text, flush) => {
    if (flush) text += '\n\n'
    let start = skipLf && text.charCodeAt(0) === 0x0a ? 1 : 0
    skipLf = false
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i)
      if (code !== 0x0a && code !== 0x0d) continue
      const line = partial + text.slice(start, i)
      partial = ''
      if (code === 0x0d) {
        if (i + 1 === text.length) skipLf = true
        else if (text.charCodeAt(i + 1) === 0x0a) i++
      }
      start = i + 1
      if (line === '') {
        if (data.length > 0) onEvent(data.join('\n'), id)
        data = []
        id = undefined
      } else if (line.startsWith('id:')) id = line.slice(line.charCodeAt(3) === 0x20 ? 4 : 3)
      else if (line.startsWith('data:')) data.push(line.slice(line.charCodeAt(5) === 0x20 ? 6 : 5))
      else if (line === 'data') data.push('')
    }
    if (start < text.length) partial += text.slice(start)
  }
}

/**
 * Reads a Server-Sent Events body and yields the `data` of each event with its `id` field
 * (`undefined` when it has none), as `sseParser` reads them. Lines may be
 * cut anywhere between chunks, even inside a UTF-8 sequence. An abort of `signal` ends the stream
 * quietly; whether that is an error is the caller's call.
 */
export async function* readSseData(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal | undefined,
  { flushAtEnd }: ReadSseOptions,
): AsyncGenerator<[data: string, id: string | undefined], void, undefined> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  // Cancelling ends a pending read at once, even when the body's producer ignores the abort.
  const cancel = () => void reader.cancel().catch(() => {})
  signal?.addEventListener('abort', cancel, { once: true })
  if (signal?.aborted) cancel()
  const events: [string, string | undefined][] = []
  const feed = sseParser((data, id) => events.push([data, id]))
  try {
    for (;;) {
      const { done, value } = await reader.read()
      feed(decoder.decode(value, { stream: !done }), done && flushAtEnd)
      yield* events.splice(0)
      if (done) return
    }
  } finally {
    // Reached when the consumer stops early, too: release the connection.
    signal?.removeEventListener('abort', cancel)
    cancel()
  }
}
