import { randomId } from '../../util/randomId.ts'

// Redis Cluster puts a key in one of 16,384 hash slots: CRC16 (XMODEM) of its hash tag (what is
// between its first `{` and the next `}`, when not empty) or of the whole key, modulo 16,384. A
// script may only touch keys of one slot, so the Redis store mints a run's id such that the run's
// own keys (`{<runId>}:…`) share its thread's slot: its log is then written by the thread's commit
// scripts, and found by a reader given the run's id alone, with no index from run to thread.

const SLOTS = 16_384
const CRC_TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  return crc
})

const ascii = /^[\x00-\x7f]*$/
const utf8 = new TextEncoder()

function crc16(text: string, start = 0, end = text.length): number {
  let crc = 0
  if (ascii.test(text)) {
    for (let i = start; i < end; i++) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ text.charCodeAt(i)) & 0xff]!
    return crc
  }
  for (const byte of utf8.encode(text.slice(start, end))) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[((crc >> 8) ^ byte) & 0xff]!
  return crc
}

/** The hash slot of `key`, as Redis Cluster computes it. */
export function hashSlot(key: string): number {
  const open = key.indexOf('{')
  if (open !== -1) {
    const close = key.indexOf('}', open + 1)
    if (close > open + 1) return crc16(key, open + 1, close) % SLOTS
  }
  return crc16(key) % SLOTS
}

/** Characters of the suffix that moves an id to a slot: base64url, as the rest of the id. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const SUFFIX_LENGTH = 3
let suffixes: Uint32Array | undefined

/**
 * For each slot, three characters whose CRC16 falls in it (the 262,144 strings of three base64url
 * characters cover all 16,384 slots), built once on first use. CRC16 with a zero start is linear:
 * the CRC of `id + suffix` is the CRC of `id + "\0\0\0"` XOR the suffix's own, so the suffix for a
 * wanted slot is looked up, not searched for.
 */
function suffixTable(): Uint32Array {
  if (suffixes) return suffixes
  const table = new Uint32Array(SLOTS).fill(0xffffffff)
  for (let a = 0; a < 64; a++) {
    const crcA = CRC_TABLE[ALPHABET.charCodeAt(a)]!
    for (let b = 0; b < 64; b++) {
      const crcB = ((crcA << 8) & 0xffff) ^ CRC_TABLE[((crcA >> 8) ^ ALPHABET.charCodeAt(b)) & 0xff]!
      for (let c = 0; c < 64; c++) {
        const slot = ((((crcB << 8) & 0xffff) ^ CRC_TABLE[((crcB >> 8) ^ ALPHABET.charCodeAt(c)) & 0xff]!) % SLOTS) >>> 0
        if (table[slot] === 0xffffffff) table[slot] = (a << 12) | (b << 6) | c
      }
    }
  }
  return (suffixes = table)
}

/**
 * A new run id (`run_` and 25 base64url characters: 128 random bits, then three that place it)
 * whose own CRC16 falls in `slot`.
 */
export function runIdInSlot(slot: number): string {
  const base = randomId('run_')
  let crc = crc16(base)
  for (let i = 0; i < SUFFIX_LENGTH; i++) crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[(crc >> 8) & 0xff]!
  const found = suffixTable()[(crc % SLOTS) ^ slot]!
  return base + ALPHABET[found >> 12]! + ALPHABET[(found >> 6) & 63]! + ALPHABET[found & 63]!
}
