import { retry } from '../../util/retry.ts'
import { HttpError, threadNotFound } from '../errors.ts'
import { commitClaim, storedUnlessRefused, type ClaimStart } from '../thread/cachedClaim.ts'
import type { ThreadChange } from '../thread/thread.ts'
import type { ThreadHead, ThreadStore } from '../thread/threadStore.ts'

// How a claim goes, here in claim/ from start to end: what the request makes of the head (its
// checks, the history read alongside), the app's context, the change, and one compare-and-set
// (thread/cachedClaim.ts `commitClaim`), which answers with data: the head written, or the stored
// head to decide again on. The thread writer never calls back into a claim.

/** What a claiming request does, in order, with the head it claims. */
export interface ClaimPlan<TPrepared, TResolved, TChange extends ThreadChange> {
  /** What the request makes of the head before the claim (its checks of the client's history, the history read alongside); made again of the stored head on a miss. */
  prepare(head: ThreadHead): Promise<TPrepared>
  /** Runs once, after the first `prepare` and before anything is claimed: the app's context. */
  resolve(): Promise<TResolved>
  /** The claim's change of a head, from what `prepare` made of the head it started from and what `resolve` gave. */
  change(prepared: TPrepared, resolved: TResolved): (head: ThreadHead) => TChange | Promise<TChange>
}

/** What a claim wrote. */
export interface Claimed<TPrepared, TResolved, TChange extends ThreadChange> {
  readonly prepared: TPrepared
  readonly resolved: TResolved
  readonly head: ThreadHead
  readonly change: TChange
  /** The head the change was made of. */
  readonly previous: ThreadHead
}

/** How many compare-and-sets a claim tries before it gives up with 409 (another writer kept coming first). */
const CLAIM_ATTEMPTS = 5

/**
 * Claims the thread by `plan`, from `start`'s head: on the cache's head, the claim follows it and a
 * miss goes on from the stored head (made again of it: prepared, changed); on a head read from the
 * store, a refused compare-and-set makes the change again of the head stored now, so concurrent
 * requests serialize. A refusal made of the cached head (the thread is busy, an answer does not
 * fit it) stands only if that head is the stored one; else the request is decided again on the
 * stored head.
 */
export async function claimThread<TPrepared, TResolved, TChange extends ThreadChange>(
  store: ThreadStore,
  start: ClaimStart,
  plan: ClaimPlan<TPrepared, TResolved, TChange>,
): Promise<Claimed<TPrepared, TResolved, TChange>> {
  /** The head the claim goes on; the cache's until a miss. */
  let head = start.head
  let cached = start.stored !== undefined
  let prepared: TPrepared
  try {
    prepared = await plan.prepare(head)
  } catch (error) {
    if (!cached) throw error
    ;({ head, prepared } = await fromStored(start, error, plan))
    cached = false
  }
  const resolved = await plan.resolve()
  try {
    return await retry(
      async () => {
        let change: TChange
        try {
          change = await plan.change(prepared, resolved)(head)
        } catch (error) {
          if (!cached) throw error
          ;({ head, prepared } = await fromStored(start, error, plan))
          cached = false
          throw AGAIN
        }
        const committed = await commitClaim(store, head, change, cached ? start : undefined)
        if (committed.written) return { prepared, resolved, head: committed.written, change, previous: committed.previous }
        if (!committed.stored) throw threadNotFound(head.id)
        head = committed.stored
        // A miss: what the request made of the cache's head is made again of the stored one.
        if (cached) prepared = await plan.prepare(head)
        cached = false
        throw AGAIN
      },
      // The cache's head first, then as many tries as without it.
      { attempts: CLAIM_ATTEMPTS + (cached ? 1 : 0), delay: () => 0, retryable: (error) => error === AGAIN },
    )
  } catch (error) {
    if (error === AGAIN) throw new HttpError(409, 'VERSION_CONFLICT', 'The thread kept changing while this request tried to update it; retry')
    throw error
  }
}

/** The stored head after a refusal made of the cached one, and what the request makes of it; the refusal itself when the cached head is the stored one. */
async function fromStored<TPrepared>(start: ClaimStart, refusal: unknown, plan: { prepare(head: ThreadHead): Promise<TPrepared> }) {
  const head = await storedUnlessRefused(start, refusal)
  return { head, prepared: await plan.prepare(head) }
}

/** Another go, on the head the last one found stored. */
const AGAIN = new Error('The claim goes again on the stored head')
