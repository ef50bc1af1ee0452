import { HttpError } from '../errors.ts'
import { randomId } from '../../util/randomId.ts'
import type { LinkReviewer } from '../options.ts'
import type { StoredInterrupt } from '../thread/threadStore.ts'
import { digestOf } from '../../util/digest.ts'

// Signed review links: a token that lets one reviewer decide one interrupt once, from a page the
// app serves, without access to the thread itself. HMAC-SHA256 with the app's secret (Web
// Crypto, so it runs on every runtime), bound to the thread, the interrupt, the reviewer and the
// digest of the arguments they will be shown. Whether it was used is kept on the interrupt (see
// `StoredInterrupt.usedLinks`), so a replay is refused under the same compare-and-set as the answer.

/** What a token says, once its signature is checked. */
export interface ReviewClaims {
  readonly threadId: string
  readonly interruptId: string
  readonly reviewer: LinkReviewer
  /** `shownDigest` of the arguments the link was made for. */
  readonly argsDigest: string
  /** Epoch milliseconds. */
  readonly expiresAt: number
  /** Makes each link single-use: kept on the interrupt once used. */
  readonly nonce: string
}

const encoder = new TextEncoder()

function base64url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[\w-]*$/.test(text)) return undefined
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4))
    return Uint8Array.from(binary, (char) => char.charCodeAt(0))
  } catch {
    return undefined
  }
}

/** The HMAC key, imported once per handler. */
export function reviewLinkKey(secret: string | Uint8Array): Promise<CryptoKey> {
  const bytes = typeof secret === 'string' ? encoder.encode(secret) : secret
  return crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
}

export async function signReviewLink(key: CryptoKey, claims: Omit<ReviewClaims, 'nonce'>): Promise<string> {
  const { threadId, interruptId, reviewer, argsDigest, expiresAt } = claims
  const payload = { t: threadId, i: interruptId, r: 'user' in reviewer ? `user:${reviewer.user}` : `role:${reviewer.role}`, d: argsDigest, e: expiresAt, n: randomId('rl_') }
  const body = base64url(encoder.encode(JSON.stringify(payload)))
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(body)))
  return `${body}.${base64url(signature)}`
}

/**
 * The token's claims, if its signature holds and it has not expired. Anything else is refused:
 * 401 `REVIEW_LINK_INVALID` (malformed, truncated, altered, signed with another secret), 410
 * `REVIEW_LINK_EXPIRED`. Whether it fits the interrupt is the caller's check.
 */
export async function verifyReviewLink(key: CryptoKey, token: unknown, now = Date.now()): Promise<ReviewClaims> {
  const invalid = () => new HttpError(401, 'REVIEW_LINK_INVALID', 'This review link is not valid: it is incomplete or was altered', 'review')
  if (typeof token !== 'string' || token.length > 2048) throw invalid()
  const [body, signature, extra] = token.split('.')
  if (!body || !signature || extra !== undefined) throw invalid()
  const signatureBytes = fromBase64url(signature)
  if (!signatureBytes || signatureBytes.length !== 32) throw invalid()
  if (!(await crypto.subtle.verify('HMAC', key, signatureBytes as Uint8Array<ArrayBuffer>, encoder.encode(body)))) throw invalid()
  let payload: Record<string, unknown>
  try {
    payload = JSON.parse(new TextDecoder().decode(fromBase64url(body))) as Record<string, unknown>
  } catch {
    throw invalid()
  }
  const { t, i, r, d, e, n } = payload
  if (typeof t !== 'string' || typeof i !== 'string' || typeof r !== 'string' || typeof d !== 'string' || typeof e !== 'number' || typeof n !== 'string') throw invalid()
  const reviewer: LinkReviewer | undefined = r.startsWith('user:') ? { user: r.slice(5) } : r.startsWith('role:') ? { role: r.slice(5) } : undefined
  if (!reviewer) throw invalid()
  if (e <= now) throw new HttpError(410, 'REVIEW_LINK_EXPIRED', `This review link expired at ${new Date(e).toISOString()}; ask for a new one`, 'review')
  return { threadId: t, interruptId: i, reviewer, argsDigest: d, expiresAt: e, nonce: n }
}

/**
 * Whether a verified link still applies to its interrupt (`undefined`: decided, or gone): it works
 * once, and only for the arguments it was made for, so a reviewer never approves what they were
 * not shown. The one home of these two refusals: the review page (`GET ?review=`) and the answer
 * (`POST { review }`) refuse alike.
 */
export async function checkLinkApplies(interrupt: StoredInterrupt | undefined, link: ReviewClaims): Promise<StoredInterrupt> {
  if (!interrupt || interrupt.answer || interrupt.usedLinks?.includes(link.nonce)) {
    throw new HttpError(409, 'REVIEW_LINK_USED', 'This review link was already used, or its request is already decided', 'review')
  }
  if ((await digestOf(interrupt.proposed ?? interrupt.input)) !== link.argsDigest) {
    throw new HttpError(409, 'ARGUMENTS_CHANGED', `The arguments of "${interrupt.toolName}" changed since this review link was made; it no longer applies`, 'review')
  }
  return interrupt
}
