/**
 * The size of a JSON value as JSON text in UTF-8 bytes, without encoding it. Throws what `JSON.stringify` throws.
 *
 * Plain data (what a stored message is: plain objects and arrays of strings, numbers, booleans and
 * null) is measured where it lies, without making its text: `JSON.stringify` returns text of more
 * than a few dozen characters as a chain of pieces, which counting its bytes copied into one string
 * again: 16k instructions of a weather turn's four messages, which this walk saves. Anything else (a
 * `toJSON`, a class instance, a value nested deeper than `PLAIN_DEPTH`, a cycle) is stringified.
 */
export function jsonBytes(value: unknown): number {
  const bytes = plainJsonBytes(value, 0)
  return bytes >= 0 ? bytes : utf8Bytes(JSON.stringify(value) ?? 'null')
}

/** How deep plain data is measured in place; deeper (or a cycle) goes through `JSON.stringify`. */
const PLAIN_DEPTH = 32
/** A character `JSON.stringify` escapes (a quote, a backslash, a control character) or that is not one UTF-8 byte. */
const NOT_PLAIN = /["\\\u0000-\u001f\u0080-\uffff]/

/**
 * `value`'s JSON size in UTF-8 bytes, or `-1` when it is not plain data (the caller stringifies it).
 * `depth`: how many objects it lies in. A cycle ends the walk at `PLAIN_DEPTH` on its first way
 * round (a `-1` goes straight up), and `JSON.stringify` refuses it.
 */
function plainJsonBytes(value: unknown, depth: number): number {
  switch (typeof value) {
    case 'string':
      return NOT_PLAIN.test(value) ? quotedBytes(value) : value.length + 2
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4
    case 'boolean':
      return value ? 4 : 5
    case 'object':
      break
    default:
      // undefined, a function, a symbol (left out of an object, `null` in an array, and alone), a bigint (it throws).
      return -1
  }
  if (value === null) return 4
  if (depth === PLAIN_DEPTH) return -1
  const prototype = Object.getPrototypeOf(value) as unknown
  if (prototype === Array.prototype) return arrayBytes(value as readonly unknown[], depth + 1)
  return prototype === Object.prototype || prototype === null ? recordBytes(value as Record<string, unknown>, depth + 1) : -1
}

function arrayBytes(array: readonly unknown[], depth: number): number {
  if (typeof (array as { toJSON?: unknown }).toJSON === 'function') return -1
  // Brackets and commas; a hole, undefined, a function or a symbol is `null`.
  let bytes = array.length === 0 ? 2 : array.length + 1
  for (let index = 0; index < array.length; index++) {
    const item = array[index]
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
      bytes += 4
      continue
    }
    const size = plainJsonBytes(item, depth)
    if (size < 0) return -1
    bytes += size
  }
  return bytes
}

function recordBytes(record: Record<string, unknown>, depth: number): number {
  if (typeof record.toJSON === 'function') return -1
  // Braces; each key written is quoted and followed by a colon, and all but the first follow a comma.
  let bytes = 2
  let keys = 0
  for (const key in record) {
    if (!Object.prototype.hasOwnProperty.call(record, key)) continue
    const item = record[key]
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue
    const size = plainJsonBytes(item, depth)
    if (size < 0) return -1
    // Keys are short: counted character by character, which costs less than a regexp's test.
    bytes += size + quotedBytes(key) + 1
    keys++
  }
  return keys === 0 ? bytes : bytes + keys - 1
}

/** The UTF-8 size of `text` as `JSON.stringify` quotes and escapes it (a lone surrogate as a `\u` escape). */
function quotedBytes(text: string): number {
  let bytes = 2
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x20) bytes += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6
    else if (code === 0x22 || code === 0x5c) bytes += 2
    else if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else bytes += 6
    } else if (code >= 0xdc00 && code <= 0xdfff) bytes += 6
    else bytes += 3
  }
  return bytes
}

/** Node's (and Bun's) `Buffer`, whose native count costs about half of the loop below on any text (measured on stored messages). */
const NativeBuffer = (globalThis as { Buffer?: { byteLength(text: string, encoding: 'utf8'): number } }).Buffer

/** The length of `text` in UTF-8 bytes, without encoding it. */
export function utf8Bytes(text: string): number {
  return NativeBuffer ? NativeBuffer.byteLength(text, 'utf8') : countUtf8Bytes(text)
}

/** `utf8Bytes` on runtimes without `Buffer` (Deno, workers): a lone surrogate counts as its replacement character, as an encoder writes it. */
export function countUtf8Bytes(text: string): number {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) continue
    if (code < 0x800) bytes += 1
    else if (code >= 0xd800 && code <= 0xdbff) i++, (bytes += 2) // a surrogate pair: two UTF-16 units, four bytes
    else bytes += 2
  }
  return bytes
}
