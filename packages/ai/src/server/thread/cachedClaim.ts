import { threadNotFound } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { authorizeThread, type ThreadChange } from './thread.ts'
import { commitChange, updateThread } from './writer/index.ts'
import { sameHead } from './threadCache.ts'
import type { ThreadHead, ThreadStore } from './threadStore.ts'

// A claim made on the head this instance wrote last (thread/threadCache.ts), without reading it
// first: the claim is sent with `follows` that head, so the store writes it only if the thread
// still has that very head, and the stored head is read alongside, in the same tick. When another
// instance wrote since (or the thread went), the claim changes nothing and everything the request
// made of the cached head is made again of the head that read returned: as many round trips one
// after another as a claim that read the head first.
//
// So a thread that went (it expired) since this instance wrote it is found gone only by the claim,
// after `plan.resolve` ran the app's context: the claim, the only proof on a hit that the thread
// still has the cached head, must follow the context (a context that throws leaves nothing held),
// and learning sooner that it went would mean waiting for the stored head before the context on
// every hit, the very round trip the cache saves. Such a request resolves the context once, writes
// nothing and gets 404 (an AG-UI client's makes the thread again, with that same context).

/** The head a claim is made of; `stored`, when it is the cache's: reads the stored head (once), for a miss. */
export interface ClaimStart {
  readonly head: ThreadHead
  readonly stored?: () => Promise<ThreadHead | undefined>
}

/**
 * Authorizes the request to write the thread, then gives the head to claim: the one this instance
 * wrote last, when its cache keeps it, else the stored one (404 when the thread does not exist).
 */
export async function headToClaim(config: ChatConfig, request: Request, threadId: string): Promise<ClaimStart> {
  await authorizeThread(config, request, threadId, 'write')
  const cached = config.threadCache?.lastHead(threadId)
  if (!cached) return { head: await existing(config.store.head(threadId), threadId) }
  let reading: Promise<ThreadHead | undefined> | undefined
  const stored = () => {
    if (!reading) {
      reading = config.store.head(threadId)
      // A hit never awaits it: its failure must not go unhandled.
      reading.catch(() => {})
    }
    return reading
  }
  return { head: cached, stored }
}

/** What a claiming request does, in order, with the head it claims. */
export interface ClaimPlan<TPrepared, TResolved, TChange extends ThreadChange> {
  /** What the request makes of the head before the claim (its checks of the client's history, the history read alongside); made again of the stored head on a miss. */
  prepare(head: ThreadHead): Promise<TPrepared>
  /** Runs once, after the first `prepare` and before anything is claimed: the app's context. */
  resolve(): Promise<TResolved>
  /** The claim's change of a head, from what `prepare` made of the head it started from and what `resolve` gave. */
  change(prepared: TPrepared, resolved: TResolved): (head: ThreadHead) => TChange | Promise<TChange>
}

/**
 * Claims the thread by `plan`: as `updateThread` does from the head read, or on the cached head
 * first. A refusal made of the cached head (the thread is busy, an answer does not fit it) stands
 * only if that head is the stored one; else the request is decided again on the stored head.
 */
export async function claimThread<TPrepared, TResolved, TChange extends ThreadChange>(
  store: ThreadStore,
  start: ClaimStart,
  plan: ClaimPlan<TPrepared, TResolved, TChange>,
) {
  const { id } = start.head
  const cached = start.stored !== undefined
  /** The stored head, once the claim goes on from it: at once without a cached head, else after a miss. */
  let read = cached ? undefined : start.head
  let prepared: TPrepared
  try {
    prepared = await plan.prepare(start.head)
  } catch (error) {
    if (!cached) throw error
    read = await storedUnlessRefused(start, error)
    prepared = await plan.prepare(read)
  }
  const resolved = await plan.resolve()
  if (!read) {
    const claimed = await claimOnCached(store, start, plan.change(prepared, resolved))
    if (claimed) return { prepared, resolved, ...claimed }
    read = await existing(start.stored!(), id)
    prepared = await plan.prepare(read)
  }
  return { prepared, resolved, ...(await updateThread(store, id, plan.change(prepared, resolved), read)) }
}

/** The claim on the cached head, written only if it is the stored head; `undefined` when it is not (a miss: the cache forgot it). */
async function claimOnCached<TChange extends ThreadChange>(store: ThreadStore, start: ClaimStart, changeOf: (head: ThreadHead) => TChange | Promise<TChange>) {
  const cached = start.head
  let change: TChange
  try {
    change = await changeOf(cached)
  } catch (error) {
    await storedUnlessRefused(start, error)
    return undefined
  }
  // The stored head, read in the same tick as the claim is sent: what a miss goes on from.
  void start.stored!()
  const head = await commitChange(store, cached, change, { follows: true })
  return head ? { head, change, previous: cached } : undefined
}

/** The stored head after a refusal made of the cached one; the refusal itself when the cached head is the stored one. */
async function storedUnlessRefused(start: ClaimStart, refusal: unknown): Promise<ThreadHead> {
  const stored = await existing(start.stored!(), start.head.id)
  if (sameHead(stored, start.head)) throw refusal
  return stored
}

async function existing(reading: Promise<ThreadHead | undefined>, threadId: string): Promise<ThreadHead> {
  const head = await reading
  if (!head) throw threadNotFound(threadId)
  return head
}
