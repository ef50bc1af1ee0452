/** The size of a JSON value as JSON text in UTF-8 bytes, without encoding it. Throws what `JSON.stringify` throws. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? 'null')
}

/** Text in which every UTF-16 unit is one UTF-8 byte; `JSON.stringify`'s output mostly is. */
const ASCII = /^[\x00-\x7f]*$/

/** The length of `text` in UTF-8 bytes, without encoding it. */
export function utf8Bytes(text: string): number {
  // The regex runs natively: on ASCII text (most JSON) it costs about a third of the loop below,
  // which measured the size of each stored message and was a fiftieth of a short turn.
  if (ASCII.test(text)) return text.length
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

const messageSizes = new WeakMap<object, number>()

/**
 * `jsonBytes` of a stored message, measured once: the runtime never changes a message once made,
 * and a turn asks for each one's size more than once (the room check before a model call, the commit).
 */
export function messageBytes(message: object): number {
  let bytes = messageSizes.get(message)
  if (bytes === undefined) messageSizes.set(message, (bytes = jsonBytes(message)))
  return bytes
}
