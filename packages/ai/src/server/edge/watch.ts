import type { ChatConfig } from '../options.ts'
import { HttpError, threadNotFound } from '../errors.ts'
import { authorizeThread } from '../thread/thread.ts'
import { THREAD_WATCH_POLL_MS } from '../thread/threadStore.ts'
import { settleDueExpiries } from '../run/expiry.ts'
import { jsonResponse } from './responses.ts'
import { ANONYMOUS } from '../decisions/records.ts'

// `GET ?threadId=&watch=<version>`: a long poll on the thread's head. A chat waiting for a reviewer
// learns of a decision made anywhere (a review link, another instance, the API) as soon as it is
// committed: the store wakes the watch on every commit of the thread (Redis pub/sub, Postgres
// NOTIFY, in-process for memory), and a store that cannot is looked at every second. The answer
// says only "it changed, at version N": the client reads the thread itself. It reads heads only, and
// never this instance's cached one (thread/threadCache.ts): whether another instance wrote since, or
// the thread went and was made again under its id, only the store knows, and the answer must be the
// store's version (a version from the cache could wake a watcher of a thread made again at once, and again).

/** 200 `{ threadId, version }` once the head is past `version`; 204 when `limits.watchMs` passes first (ask again). */
export async function watchResponse(config: ChatConfig, request: Request, threadId: string, version: number): Promise<Response> {
  await authorizeThread(config, request, threadId, 'read') // as a thread read: before anything is read
  const { watchers, limits } = config
  if (watchers.count >= limits.maxWatchers) {
    throw new HttpError(429, 'TOO_MANY_WATCHERS', 'The server holds as many watches as it can at once; try again shortly')
  }
  // Each person's watches are bounded too, so one who opens a thousand cannot take every other's
  // place. Without `identify` everyone is the anonymous principal: only the process's bound holds.
  const principal = await config.identify(request)
  const who = principal === ANONYMOUS ? undefined : principal.id
  const held = who === undefined ? 0 : (watchers.byPrincipal.get(who) ?? 0)
  if (held >= limits.maxWatchersPerPrincipal) {
    throw new HttpError(429, 'TOO_MANY_WATCHERS', `You hold ${held} watches at once, the most one person may; close some and try again`)
  }
  watchers.count++
  if (who !== undefined) watchers.byPrincipal.set(who, held + 1)
  try {
    const deadline = Date.now() + limits.watchMs
    const found = await config.store.head(threadId)
    if (!found) throw threadNotFound(threadId)
    // An approval past its expiry is settled here too (as by any reader), which the watch then sees.
    let head = await settleDueExpiries(config, found, request)
    while (head.version === version) {
      const left = deadline - Date.now()
      if (left <= 0 || request.signal.aborted) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } })
      await (config.store.watch ? config.store.watch(threadId, version, left, request.signal) : pause(Math.min(THREAD_WATCH_POLL_MS, left), request.signal))
      const next = await config.store.head(threadId)
      if (!next) throw threadNotFound(threadId)
      head = next
    }
    return jsonResponse(200, { threadId, version: head.version })
  } finally {
    watchers.count--
    if (who !== undefined) {
      const left = (watchers.byPrincipal.get(who) ?? 1) - 1
      if (left === 0) watchers.byPrincipal.delete(who)
      else watchers.byPrincipal.set(who, left)
    }
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
  })
}
