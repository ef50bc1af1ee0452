const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const CODES = Array.from(ALPHABET, (char) => char.charCodeAt(0))
/** Ids drawn per call to `crypto.getRandomValues`: one call per id was a sixth of the server's CPU. */
const IDS_PER_FILL = 256
const pool = new Uint8Array(16 * IDS_PER_FILL)
let offset = pool.length
/** Character codes of an id, by prefix (the prefix's codes first): the id is made as one string, not concatenated a character at a time. */
const codesByPrefix = new Map<string, number[]>()

/**
 * An unguessable id: 128 random bits as 22 base64url characters. Uses `crypto.getRandomValues`,
 * which exists in every browser context and in Node, unlike `crypto.randomUUID` (secure contexts
 * only); bytes are drawn in batches and never reused.
 */
export function randomId(prefix = ''): string {
  if (offset === pool.length) {
    crypto.getRandomValues(pool)
    offset = 0
  }
  let codes = codesByPrefix.get(prefix)
  if (!codes) {
    codes = [...Array.from(prefix, (char) => char.charCodeAt(0)), ...new Array<number>(22).fill(0)]
    if (codesByPrefix.size < 64) codesByPrefix.set(prefix, codes)
  }
  let at = prefix.length
  // 16 bytes = five groups of 3 bytes (4 characters each) and one byte (2 characters).
  for (let i = offset; i < offset + 15; i += 3) {
    const bits = (pool[i]! << 16) | (pool[i + 1]! << 8) | pool[i + 2]!
    codes[at++] = CODES[bits >> 18]!
    codes[at++] = CODES[(bits >> 12) & 63]!
    codes[at++] = CODES[(bits >> 6) & 63]!
    codes[at++] = CODES[bits & 63]!
  }
  const last = pool[offset + 15]!
  codes[at++] = CODES[last >> 2]!
  codes[at] = CODES[(last & 3) << 4]!
  const id = String.fromCharCode.apply(null, codes)
  // A drawn id's bytes never stay in memory, nor the characters made of them. Zeroed in loops, not
  // by `fill`: both `fill`s are calls into the runtime, each dearer than the loop over 16 or 22 slots.
  for (let i = offset; i < offset + 16; i++) pool[i] = 0
  for (let i = prefix.length; i < codes.length; i++) codes[i] = 0
  offset += 16
  return id
}
