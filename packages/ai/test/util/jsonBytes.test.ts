import { describe, expect, it } from 'vitest'
import { countUtf8Bytes, jsonBytes, utf8Bytes } from '../../src/util/jsonBytes.ts'

// The sizes the store's byte limits and the tool-output limit count: they must equal what an
// encoder makes of the text, by Node's count and by the loop runtimes without `Buffer` use.
const encoded = (text: string) => new TextEncoder().encode(text).byteLength

describe('utf8Bytes', () => {
  it.each([
    ['empty', ''],
    ['ASCII', '{"city":"Paris","temperature":21}'],
    ['ASCII control characters', '\u0000\u001f\u007f'],
    ['two-byte characters', 'Zürich, São Paulo'],
    ['three-byte characters', '東京 — €'],
    ['a surrogate pair', 'weather 🌦 today'],
    ['a lone high surrogate at the end', 'cut \ud83c'],
    ['a lone high surrogate before ASCII', '\ud83cx'],
    ['a lone low surrogate', 'x\udf26y'],
  ])('counts %s as an encoder does', (_name, text) => {
    expect(utf8Bytes(text)).toBe(encoded(text))
    expect(countUtf8Bytes(text)).toBe(encoded(text))
  })

  it('sizes a value as its JSON text', () => {
    const value = { city: 'Zürich', note: 'wet 🌧', lone: '\ud83c' }
    expect(jsonBytes(value)).toBe(encoded(JSON.stringify(value)))
  })
})

describe('jsonBytes', () => {
  class Point {
    constructor(
      readonly x: number,
      readonly y: number,
    ) {}
  }
  const nullPrototype = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, 'b"\\': 'ü' })
  const withHidden = Object.defineProperties({ shown: 1 }, { hidden: { value: 2, enumerable: false }, [Symbol('s')]: { value: 3, enumerable: true } })
  const withGetter = { get computed() { return 'from a getter' } }
  const inherited = Object.assign(Object.create({ fromPrototype: 'not written' }) as Record<string, unknown>, { own: true })
  const shared = { same: 'twice' }
  const sparse = [1, , 3]
  const arrayWithKey = Object.assign([1, 2], { extra: 'not written' })
  let deep: unknown = 'bottom'
  for (let level = 0; level < 40; level++) deep = level % 2 === 0 ? { level, deep } : [deep]

  // Each as `JSON.stringify` writes it, measured by an encoder.
  it.each([
    ['a stored message', { role: 'assistant', id: 'msg_1', content: 'It is 5°C.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }],
    ['a tool result with output', { role: 'tool', id: 'msg_2', toolCallId: 'call_1', toolName: 'get_weather', content: '{"tempC":5}', status: 'success', output: { tempC: 5, ok: true, none: null } }],
    ['empty containers', { object: {}, array: [], nested: [[], [{}]] }],
    ['numbers', [0, -0, 1, -1.5, 0.1, 1e21, 1e-7, 123456789012345680000, Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity]],
    ['booleans and null', [true, false, null]],
    ['left-out values in an object', { u: undefined, f: () => 1, s: Symbol('x'), kept: 'yes' }],
    ['only left-out values in an object', { u: undefined, f: () => 1 }],
    ['null-written values in an array', [undefined, () => 1, Symbol('x'), 'kept']],
    ['a sparse array', sparse],
    ['an array with a named key', arrayWithKey],
    ['escapes', '"quote" back\\slash \b\f\n\r\t \u0000 \u0001 \u001f \u007f \u2028 \u2029'],
    ['escapes in keys', { 'a"b': 1, 'c\\d': 2, 'e\nf': 3, 'ü': 4, '🌦': 5, '': 6 }],
    ['two-, three- and four-byte characters', 'Zürich 東京 € 🌦'],
    ['lone surrogates', ['\ud83c', '\udf26', 'a\ud83cb', '\udf26\ud83c', '\ud83c\ud83c\udf26']],
    ['a null-prototype object', nullPrototype],
    ['non-enumerable and symbol keys', withHidden],
    ['a getter', withGetter],
    ['an inherited key', inherited],
    ['an object twice', { one: shared, two: shared }],
    ['a date (toJSON)', { at: new Date(0) }],
    ['an own toJSON', { toJSON: () => ({ replaced: true }) }],
    ['a class instance', { point: new Point(1, 2) }],
    ['a boxed string', { boxed: new String('x') }],
    ['a Map', { map: new Map([[1, 2]]) }],
    ['a typed array', { bytes: new Uint8Array([1, 2]) }],
    ['nesting deeper than is walked', deep],
    ['a string alone', 'plain'],
    ['a number alone', 42],
    ['null alone', null],
    ['undefined alone', undefined],
    ['a function alone', () => 1],
  ])('sizes %s as its JSON text', (_name, value) => {
    expect(jsonBytes(value)).toBe(encoded(JSON.stringify(value) ?? 'null'))
  })

  it('throws what JSON.stringify throws, and stops at a cycle that branches', () => {
    const cycle: Record<string, unknown> = { name: 'loop' }
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) cycle[key] = cycle
    expect(() => jsonBytes(cycle)).toThrow(TypeError)
    expect(() => jsonBytes({ big: 1n })).toThrow(TypeError)
  })
})
