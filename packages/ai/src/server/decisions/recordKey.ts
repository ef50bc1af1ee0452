import { canonicalJson, toHex } from '../../util/digest.ts'

// The key that signs decision records. A store writer can rewrite what the store holds (a record,
// the head's tip, the messages); without this key they cannot make a record's MAC, so a record
// they changed, recomputed or appended is refused when read. The key is derived from the app's
// secret for this use only: the same secret may sign review links (`reviewLinks.secret`), and a
// link's signature is never a record's, nor the reverse.

const encoder = new TextEncoder()

/** What a record's `digest` starts with when the chain is keyed; a plain SHA-256 chain's start with `sha256:`. */
export const MAC_PREFIX = 'hmac-sha256:'

/** Derives the records' HMAC-SHA-256 key from the app's secret (Web Crypto: every runtime). */
export async function decisionRecordKey(secret: string | Uint8Array): Promise<CryptoKey> {
  const bytes = typeof secret === 'string' ? encoder.encode(secret) : secret
  const root = await crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const derived = await crypto.subtle.sign('HMAC', root, encoder.encode('toolgate/decision-records/v1'))
  return crypto.subtle.importKey('raw', derived, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
}

/** `hmac-sha256:<hex>` of the value's canonical JSON under `key`. */
export async function macOf(key: CryptoKey, value: unknown): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(canonicalJson(value)))
  return `${MAC_PREFIX}${toHex(new Uint8Array(mac))}`
}

/** Whether two MACs are equal, in time independent of where they differ. */
export function sameMac(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/** The secret's size check, shared by every option that takes one. */
export function secretProblem(secret: unknown): string | undefined {
  const length = typeof secret === 'string' ? encoder.encode(secret).length : secret instanceof Uint8Array ? secret.length : 0
  return length < 32 ? 'must be a string or bytes of at least 32 bytes (e.g. `openssl rand -hex 32`)' : undefined
}
