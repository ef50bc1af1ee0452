/**
 * Reads a Server-Sent Events body and yields the `data` of each event, lines joined by `\n`.
 * Other fields and comments are skipped: OpenAI and Anthropic both put everything in `data`.
 * Lines may be cut anywhere between chunks, even inside a UTF-8 sequence or a `\r\n`.
 */
export async function* readSseData(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<string, void, undefined> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  // Cancelling ends a pending read at once, even when a custom `fetch` ignores the signal.
  const cancel = () => void reader.cancel().catch(() => {})
  signal.addEventListener('abort', cancel, { once: true })
  let partial = ''
  let skipLf = false
  let data: string[] = []
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (signal.aborted) throw signal.reason
      const text = done ? decoder.decode() + '\n\n' : decoder.decode(value, { stream: true })
      let start = skipLf && text.startsWith('\n') ? 1 : 0
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
          const event = data.join('\n')
          const complete = data.length > 0
          data = []
          if (signal.aborted) throw signal.reason
          if (complete) yield event
        } else if (line.startsWith('data:')) data.push(line.charCodeAt(5) === 0x20 ? line.slice(6) : line.slice(5))
        else if (line === 'data') data.push('')
      }
      if (start < text.length) partial += text.slice(start)
      if (done) return
    }
  } finally {
    signal.removeEventListener('abort', cancel)
    cancel()
  }
}
