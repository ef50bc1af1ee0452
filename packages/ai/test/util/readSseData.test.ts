import { describe, expect, it } from 'vitest'
import { readSseData } from '../../src/util/readSseData.ts'

function bodyOf(chunks: readonly (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
      controller.close()
    },
  })
}

async function collect(chunks: readonly (string | Uint8Array)[], flushAtEnd = false): Promise<string[]> {
  const out: string[] = []
  for await (const [data] of readSseData(bodyOf(chunks), undefined, { flushAtEnd })) out.push(data)
  return out
}

describe('readSseData', () => {
  it('yields the data of each event', async () => {
    expect(await collect(['data: {"a":1}\n\ndata: {"b":2}\n\n'])).toEqual(['{"a":1}', '{"b":2}'])
  })

  it('reads events cut at any point, including inside a UTF-8 character', async () => {
    const bytes = new TextEncoder().encode('data: é😀\n\ndata: x\r\n\r\n')
    for (let size = 1; size < bytes.length; size++) {
      const chunks: Uint8Array[] = []
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.slice(i, i + size))
      expect(await collect(chunks)).toEqual(['é😀', 'x'])
    }
  })

  it('accepts \\r, \\n and \\r\\n line ends, even with \\r and \\n in different chunks', async () => {
    expect(await collect(['data: a\r', '\n\r', '\ndata: b\r\rdata: c\n\n'])).toEqual(['a', 'b', 'c'])
  })

  it('joins multi-line data, skips comments and other fields, and keeps a space that is not the first', async () => {
    const text = ': keep-alive\n\nevent: message\nid: 7\nretry: 10\ndata: one\ndata:  two\ndata\n\n'
    expect(await collect([text])).toEqual(['one\n two\n'])
  })

  it('drops an event the stream cut off before its blank line', async () => {
    expect(await collect(['data: whole\n\ndata: cut'])).toEqual(['whole'])
  })

  it('with flushAtEnd, yields an event the stream cut off before its blank line', async () => {
    expect(await collect(['data: whole\n\ndata: cut'], true)).toEqual(['whole', 'cut'])
    expect(await collect(['data: whole\n\ndata: a\ndata: b\n'], true)).toEqual(['whole', 'a\nb'])
    expect(await collect(['data: whole\n\n: comment'], true)).toEqual(['whole'])
  })

  it('stops reading when the signal aborts, even if the body never ends', async () => {
    const controller = new AbortController()
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(new TextEncoder().encode('data: first\n\n'))
      },
    })
    const seen: string[] = []
    for await (const [data] of readSseData(body, controller.signal, { flushAtEnd: false })) {
      seen.push(data)
      controller.abort()
    }
    expect(seen).toEqual(['first'])
  })

  it('reads nothing when the signal aborted before it started', async () => {
    const controller = new AbortController()
    controller.abort()
    const seen: string[] = []
    for await (const [data] of readSseData(new ReadableStream<Uint8Array>(), controller.signal, { flushAtEnd: false })) seen.push(data)
    expect(seen).toEqual([])
  })
})
