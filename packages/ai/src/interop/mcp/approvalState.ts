import type { RequestStateCodec, ServerContext } from '@modelcontextprotocol/server'
import { InvalidOptionError } from '../../errors.ts'
import { randomId } from '../../util/randomId.ts'
import { warnOnce } from '../../server/warnings.ts'

// The approval of one gated call between its two rounds (MCP 2026-07-28, input_required): the
// server keeps nothing, so what it asked travels to the client in `requestState` and comes back
// with the answer. It is signed (HMAC-SHA256 under the app's `secret`, the SDK's codec), so any
// instance given the same secret accepts it and none accepts one it did not sign; it names the call
// it approves (tool and argument digest) and who asked (bound to the caller's auth), so it cannot
// approve another; it expires; and its id is spent on first use, so an answer is taken once.

/**
 * Which approvals were answered already, so a replayed answer is refused. `use` returns `true` the
 * first time it sees `id` and `false` after; `expiresAt` (ms since the epoch) is when the id can be
 * forgotten, as the signed state is refused past it anyway. Share one across instances (e.g. Redis
 * `SET key 1 NX PXAT expiresAt`); the default holds ids in this process's memory.
 */
export interface McpUsedApprovals {
  use(id: string, expiresAt: number): boolean | Promise<boolean>
}

/** What the state says: the approval's id, the call it is about, and when it stops counting. */
export interface ApprovalClaims {
  readonly id: string
  readonly tool: string
  readonly argsDigest: string
  /** ms since the epoch. */
  readonly expiresAt: number
}

/** Why an echoed state is refused: each is a JSON-RPC `-32602` whose `data.reason` says it. */
export type ApprovalRefusal = 'invalid_request_state' | 'approval_expired' | 'approval_mismatch' | 'approval_used'

export class ApprovalStateError extends Error {
  constructor(
    readonly reason: ApprovalRefusal,
    message: string,
  ) {
    super(message)
  }
}

export interface ApprovalStates {
  mint(claims: Omit<ApprovalClaims, 'id' | 'expiresAt'>, ctx: ServerContext): Promise<string>
  /** The claims of an echoed state, checked against the call it came back with; throws `ApprovalStateError`. */
  open(state: string, call: Omit<ApprovalClaims, 'id' | 'expiresAt'>, ctx: ServerContext): Promise<ApprovalClaims>
}

/**
 * The signer for approval states. Without a `secret` a random one is drawn: approvals then work
 * only when the same process takes both rounds (one instance, or the 2025 protocol, whose
 * rounds stay in one request).
 */
export function approvalStates(
  createCodec: (options: { key: Uint8Array | string; ttlSeconds: number; bind: (ctx: ServerContext) => string }) => RequestStateCodec<ApprovalClaims>,
  secret: string | Uint8Array | undefined,
  ttlMs: number,
  shared: McpUsedApprovals | undefined,
): ApprovalStates {
  // A secret is for instances that take each other's answers; each with its own list would take a replayed one once more each.
  if (secret !== undefined && !shared) warnOnce(APPROVALS_PER_INSTANCE)
  const used = shared ?? memoryUsedApprovals()
  if (secret !== undefined && (typeof secret === 'string' ? new TextEncoder().encode(secret).byteLength : secret?.byteLength ?? 0) < 32) {
    throw new InvalidOptionError('registerMcpTools', 'secret', 'must be at least 32 bytes (a string of 32 or more characters, or a Uint8Array)')
  }
  const key = secret ?? crypto.getRandomValues(new Uint8Array(32))
  // The codec's expiry counts whole seconds; ours, in the claims, counts milliseconds.
  const codec = createCodec({ key, ttlSeconds: Math.ceil(ttlMs / 1000) + 1, bind: callerOf })
  return {
    mint: (claims, ctx) => codec.mint({ ...claims, id: randomId('mcpa_'), expiresAt: Date.now() + ttlMs }, ctx),
    async open(state, call, ctx) {
      let claims: ApprovalClaims
      try {
        claims = await codec.verify(state, ctx)
      } catch (error) {
        if (error instanceof Error && error.message === 'expired') throw expired()
        throw new ApprovalStateError('invalid_request_state', 'The approval state is not one this server signed for this caller; nothing ran. Call the tool again to be asked anew.')
      }
      if (claims.expiresAt <= Date.now()) throw expired()
      if (claims.tool !== call.tool || claims.argsDigest !== call.argsDigest) {
        throw new ApprovalStateError('approval_mismatch', `The approval answers another call than this one (tool "${call.tool}" with these arguments); nothing ran. Call the tool again to be asked anew.`)
      }
      let fresh: boolean
      try {
        fresh = await used.use(claims.id, claims.expiresAt)
      } catch (error) {
        // Unknown whether it was answered before: refused, as a replay would be.
        throw new Error('the record of answered approvals (`usedApprovals`) could not be read, so the call did not run; call the tool again', { cause: error })
      }
      if (!fresh) {
        throw new ApprovalStateError('approval_used', 'This approval was answered already and is taken once; nothing ran again. Call the tool again to be asked anew.')
      }
      return claims
    },
  }
}

export const APPROVALS_PER_INSTANCE = {
  code: 'TOOLGATE_MCP_APPROVALS_PER_INSTANCE',
  message:
    'registerMcpTools: with a `secret`, every instance sharing it takes the approval answers the others asked for, but without a shared `usedApprovals` each keeps its own list of answered approvals: an answer replayed to another instance runs the call again there.',
}

function expired(): ApprovalStateError {
  return new ApprovalStateError('approval_expired', 'The approval expired before its answer came; nothing ran. Call the tool again to be asked anew.')
}

/** Who asked, as the transport's auth says (the same caller must answer): the client id and the token's subject, when there is auth. */
function callerOf(ctx: ServerContext): string {
  const auth = ctx.http?.authInfo
  if (!auth) return ''
  const subject = (auth.extra as { sub?: unknown } | undefined)?.sub
  return JSON.stringify([auth.clientId, typeof subject === 'string' ? subject : null])
}

/** One process's record of spent approvals, each forgotten once it expires. */
export function memoryUsedApprovals(): McpUsedApprovals {
  const spent = new Map<string, number>()
  return {
    use(id, expiresAt) {
      const now = Date.now()
      if (spent.size > 1024) for (const [key, until] of spent) if (until <= now) spent.delete(key)
      if (spent.has(id)) return false
      spent.set(id, expiresAt)
      return true
    },
  }
}
