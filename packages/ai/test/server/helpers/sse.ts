/**
 * A small Server-Sent Events reader for tests: yields each event's `data` parsed as JSON.
 * Follows the SSE framing rules the handler relies on: events end at a blank line, `data:` lines
 * join with newlines, lines starting with `:` are comments.
 */
export async function* readSse(response: Response): AsyncGenerator<unknown> {
  if (!response.body) return
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += value.replace(/\r\n?/g, '\n')
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = dataOf(block)
        if (data !== undefined) yield JSON.parse(data)
      }
    }
    const rest = dataOf(buffer)
    if (rest !== undefined) yield JSON.parse(rest)
  } finally {
    await reader.cancel().catch(() => {})
  }
}

function dataOf(block: string): string | undefined {
  const lines = block
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''))
  return lines.length > 0 ? lines.join('\n') : undefined
}
