import { ChatError } from '../chatError.ts'
import { backoff, retry, sleep } from '../../util/retry.ts'

/** 0.1, 0.2, 0.4, 0.8 s: the server notices the abort within about 1.5 s. */
const postDelay = backoff(100)

/**
 * After a post of a client that interrupted its own run was refused `THREAD_BUSY` (the server
 * notices the abort a moment later): waits, then posts again while the thread stays busy, four
 * more times at most. In the reattaching chunk (with the run's other catch-ups): only a refused post needs it.
 */
export async function postWhileBusy(post: () => Promise<Response>, signal: AbortSignal): Promise<Response> {
  await sleep(postDelay(1), signal)
  return retry(post, {
    attempts: 4,
    delay: (attempt) => postDelay(attempt + 1),
    retryable: (error) => error instanceof ChatError && error.code === 'THREAD_BUSY',
    signal,
  })
}
