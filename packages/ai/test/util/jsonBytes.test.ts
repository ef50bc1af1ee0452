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
