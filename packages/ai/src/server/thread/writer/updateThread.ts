import { retry } from '../../../util/retry.ts'
import { HttpError, threadNotFound } from '../../errors.ts'
import type { ThreadChange } from '../thread.ts'
import type { ThreadHead, ThreadStore } from '../threadStore.ts'
import { commitChange, isRefused, REFUSED } from './commit.ts'

/** What `updateThread` wrote. */
export interface Updated<TChange extends ThreadChange> {
  readonly head: ThreadHead
  readonly change: TChange
  /** The head the change was made of. */
  readonly previous: ThreadHead
}

const UPDATE_ATTEMPTS = 5

/**
 * Read, change, compare-and-set; on a conflict, read again and make the change again, so
 * concurrent requests serialize: `changeOf` sees whatever the other writer wrote (an answer it
 * gave, a run it started) and refuses accordingly. Returns the written head with the change that
 * was written (a claim's change says how its run begins).
 */
export async function updateThread<TChange extends ThreadChange>(
  store: ThreadStore,
  threadId: string,
  changeOf: (head: ThreadHead) => TChange | Promise<TChange>,
  /** The head as the caller just read it: the first attempt starts from it instead of reading again. */
  read?: ThreadHead,
): Promise<Updated<TChange>> {
  try {
    return await retry(
      async (attempt) => {
        const head = attempt === 1 && read ? read : await store.head(threadId)
        if (!head) throw threadNotFound(threadId)
        const change = await changeOf(head)
        const written = await commitChange(store, head, change)
        if (!written) throw REFUSED
        return { head: written, change, previous: head }
      },
      { attempts: UPDATE_ATTEMPTS, delay: () => 0, retryable: isRefused },
    )
  } catch (error) {
    if (error === REFUSED) throw new HttpError(409, 'VERSION_CONFLICT', 'The thread kept changing while this request tried to update it; retry')
    throw error
  }
}

