import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PartialJsonParser, finishPartialJson } from '../../src/client/draft/partialJson.ts'

function parseInPieces(text: string, size: number): PartialJsonParser {
  const parser = new PartialJsonParser()
  for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size))
  return parser
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff

function finish(text: string, size = 1) {
  return finishPartialJson(parseInPieces(text, size))
}

const SAMPLE = JSON.stringify({
  path: 'notes/today.md',
  content: 'Line "one"\nLine\ttwo \\ back/slash, unicode é ✓ 😀 \u0001',
  tags: ['a', 'b', { deep: [1, -2.5, 3e10, 0, true, false, null] }],
  empty: {},
  none: [],
  '': 'empty key',
})

describe('PartialJsonParser', () => {
  it('reads a whole value the way JSON.parse does, however the text is cut', () => {
    for (const size of [1, 2, 3, 7, 16, SAMPLE.length]) {
      expect(finish(SAMPLE, size)).toEqual({ value: JSON.parse(SAMPLE) })
    }
  })

  it('agrees with JSON.parse on any JSON value cut anywhere', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 9 }), fc.boolean(), (value, size, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined)
        expect(finish(text, size)).toEqual({ value: JSON.parse(text) })
      }),
      { numRuns: 300 },
    )
  })

  it('shows a partial value at every step: strings cut short, numbers and keys only once complete', () => {
    const steps: unknown[] = []
    const parser = new PartialJsonParser()
    for (const char of '{"city": "Par", "n": 12, "list": [1, "x') {
      parser.push(char)
      steps.push(parser.value())
    }
    expect(steps).toContainEqual({ city: 'Pa' })
    expect(steps).toContainEqual({ city: 'Par' })
    expect(steps).not.toContainEqual({ city: 'Par', n: 1 }) // a number shows only when it ends
    expect(steps).toContainEqual({ city: 'Par', n: 12 })
    expect(steps).not.toContainEqual(expect.objectContaining({ li: expect.anything() }))
    expect(parser.value()).toEqual({ city: 'Par', n: 12, list: [1, 'x'] })
  })

  it('decodes escapes cut between pieces, surrogate pairs included', () => {
    const text = '"a\\n\\u00e9\\ud83d\\ude00\\"z"'
    for (let size = 1; size < text.length; size++) expect(finish(text, size)).toEqual({ value: 'a\né😀"z' })
  })

  it('keeps showing a string while a chunk ends inside an escape', () => {
    for (const cut of ['\\', '\\u', '\\u00', '\\u00e']) {
      const parser = new PartialJsonParser()
      parser.push(`{"text":"hello${cut}`)
      expect(parser.value()).toEqual({ text: 'hello' })
    }
    const parser = new PartialJsonParser()
    parser.push('["a\\')
    expect(parser.value()).toEqual(['a'])
    parser.push('n')
    expect(parser.value()).toEqual(['a\n'])
    const root = new PartialJsonParser()
    root.push('"x\\u00')
    expect(root.value()).toBe('x')
  })

  it('holds back a high surrogate until its pair arrives', () => {
    const parser = new PartialJsonParser()
    parser.push('{"s":"a\\ud83d')
    expect(parser.value()).toEqual({ s: 'a' })
    parser.push('\\ude')
    expect(parser.value()).toEqual({ s: 'a' })
    parser.push('00')
    expect(parser.value()).toEqual({ s: 'a😀' })
    const raw = new PartialJsonParser()
    raw.push('{"s":"b\ud83d') // a chunk cut between the halves of a raw pair
    expect(raw.value()).toEqual({ s: 'b' })
    raw.push('\ude00')
    expect(raw.value()).toEqual({ s: 'b😀' })
  })

  it('shows a string value cut anywhere as a prefix of it that never splits a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 1, max: 5 }), (value, size) => {
        const text = `{"k":${JSON.stringify(value)}}`
        const parser = new PartialJsonParser()
        for (let i = 0; i < text.length; i += size) {
          parser.push(text.slice(i, i + size))
          if (i + size <= 5) continue // the value's quote is not read yet
          const shown = (parser.value() as { k?: unknown }).k
          expect(typeof shown).toBe('string')
          const prefix = shown as string
          expect(value.startsWith(prefix)).toBe(true)
          const splitsPair = isHigh(prefix.charCodeAt(prefix.length - 1)) && isLow(value.charCodeAt(prefix.length))
          expect(splitsPair).toBe(false)
        }
        expect(parser.value()).toEqual({ k: value })
      }),
      { numRuns: 200 },
    )
  })

  it('returns the same value until something visible changes, and shares closed containers', () => {
    const parser = new PartialJsonParser()
    parser.push('{"done": {"a": [1, 2]}, "open": [')
    const first = parser.value() as { done: unknown; open: unknown[] }
    expect(parser.value()).toBe(first)
    parser.push(' ') // whitespace changes nothing
    expect(parser.value()).toBe(first)
    parser.push('"x')
    const second = parser.value() as { done: unknown; open: unknown[] }
    expect(second).not.toBe(first)
    expect(second.done).toBe(first.done)
    expect(second).toEqual({ done: { a: [1, 2] }, open: ['x'] })
    expect(Object.isFrozen(second) && Object.isFrozen(second.done) && Object.isFrozen(second.open)).toBe(true)
    expect(first).toEqual({ done: { a: [1, 2] }, open: [] }) // earlier values never change
  })

  it('keeps `__proto__` as an own key, as JSON.parse does', () => {
    const result = finish('{"__proto__": {"polluted": true}}')
    expect(result).toEqual({ value: JSON.parse('{"__proto__": {"polluted": true}}') })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf((result as { value: object }).value)).toBe(Object.prototype)
  })

  it('reads empty text as an empty object (tools without parameters)', () => {
    expect(finish('')).toEqual({ value: {} })
    expect(finish('  \n')).toEqual({ value: {} })
  })

  it('reads top-level scalars', () => {
    expect(finish('42')).toEqual({ value: 42 })
    expect(finish('-0.5e-3')).toEqual({ value: -0.0005 })
    expect(finish('null')).toEqual({ value: null })
    expect(finish('"s"')).toEqual({ value: 's' })
  })

  it.each([
    ['{"a" 1}', /Unexpected the character "1"/],
    ['{"a": 01}', /number 01/],
    ['{"a": tru}', /word tru/],
    ['{"a": nul', /word nul/],
    ['[1,]', /Unexpected the character "]"/],
    ['{"a": 1,}', /Unexpected the character "}"/],
    ['{"a": "\\x"}', /escape \\x/],
    ['"\\u12G4"', /\\u escape/],
    ['"a\nb"', /control character/],
    ['{} {}', /Unexpected the character "{"/],
    ['{"a": 1', /ended before the value was complete/],
    ['[', /ended before/],
    ['{"a": -}', /number -/],
  ])('reports malformed text %j and keeps what it read', (text, message) => {
    const result = finish(text)
    expect(result).toEqual({ error: expect.stringMatching(message) })
  })

  it('stops at the first error and ignores later text', () => {
    const parser = new PartialJsonParser()
    parser.push('{"a": 1, "b": ?')
    expect(parser.error).toMatch(/position 14/)
    parser.push('"more"}')
    expect(parser.value()).toEqual({ a: 1 })
  })
})
