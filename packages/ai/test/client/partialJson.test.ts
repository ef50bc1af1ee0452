import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PartialJsonParser, finishPartialJson } from '../../src/client/partialJson.ts'

function parseInPieces(text: string, size: number): PartialJsonParser {
  const parser = new PartialJsonParser()
  for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size))
  return parser
}

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
