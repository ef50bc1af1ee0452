/** The size of a JSON value as JSON text in UTF-8 bytes, without encoding it. Throws what `JSON.stringify` throws. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? 'null')
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
