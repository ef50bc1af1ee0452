import { threadNotFound } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { authorizeThread, type ThreadChange } from './thread.ts'
import { commitChange } from './writer/index.ts'
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
// after the claim resolved the app's context (claim/claimThread.ts): the claim, the only proof on a hit that the thread
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
  if (!cached) {
    const head = await config.store.head(threadId)
    if (!head) throw threadNotFound(threadId)
    return { head }
  }
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

/**
 * What a claim's compare-and-set gave: the head written (`previous`: the head it was made of), or,
 * refused, the stored head the claim goes on from (`undefined`: the thread is gone).
 */
export type ClaimCommit = { readonly written: ThreadHead; readonly previous: ThreadHead } | { readonly written?: undefined; readonly stored: ThreadHead | undefined }

/**
 * Writes a claim's `change` of `head` with one compare-and-set, and says how it went, as data: on
 * the cache's head (`start` has `stored`) the claim is sent with `follows`, and the stored head is
 * read in the same tick, for a miss to go on from; on a head read from the store, a refusal reads
 * the stored head again.
 */
export async function commitClaim(store: ThreadStore, head: ThreadHead, change: ThreadChange, start?: ClaimStart): Promise<ClaimCommit> {
  const cached = start?.stored !== undefined && start.head === head
  if (cached) void start.stored!()
  const written = await commitChange(store, head, change, cached ? { follows: true } : undefined)
  if (written) return { written, previous: head }
  return { stored: await (cached ? start.stored!() : store.head(head.id)) }
}

/** The stored head after a refusal made of the cached one (`start`); the refusal itself when the cached head is the stored one. */
export async function storedUnlessRefused(start: ClaimStart, refusal: unknown): Promise<ThreadHead> {
  const stored = await existing(start.stored!(), start.head.id)
  if (sameHead(stored, start.head)) throw refusal
  return stored
}

async function existing(reading: Promise<ThreadHead | undefined>, threadId: string): Promise<ThreadHead> {
  const head = await reading
  if (!head) throw threadNotFound(threadId)
  return head
}
