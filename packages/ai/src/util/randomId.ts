const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** Ids drawn per call to `crypto.getRandomValues`: one call per id was a sixth of the server's CPU. */
const IDS_PER_FILL = 256
const pool = new Uint8Array(16 * IDS_PER_FILL)
let offset = pool.length

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
  let id = prefix
  // 16 bytes = five groups of 3 bytes (4 characters each) and one byte (2 characters).
  for (let i = offset; i < offset + 15; i += 3) {
    const bits = (pool[i]! << 16) | (pool[i + 1]! << 8) | pool[i + 2]!
    id += ALPHABET[bits >> 18]! + ALPHABET[(bits >> 12) & 63]! + ALPHABET[(bits >> 6) & 63]! + ALPHABET[bits & 63]!
  }
  const last = pool[offset + 15]!
  id += ALPHABET[last >> 2]! + ALPHABET[(last & 3) << 4]!
  pool.fill(0, offset, offset + 16) // a drawn id's bytes never stay in memory
  offset += 16
  return id
}
