import type { ChatConfig } from '../../options.ts'
import { HttpError } from '../../errors.ts'
import type { ThreadSnapshot } from '../../../protocol/thread.ts'
import { read } from '../../edge/reads.ts'
import { checkedThreadId } from '../../edge/requests.ts'
import { authorizeThread } from '../../thread/thread.ts'
import { jsonResponse } from '../../edge/responses.ts'
import { echoed } from '../../../util/capText.ts'
import { asTanStackStream, TANSTACK_FRAMES } from './tanStackStream.ts'
import { answerTold } from '../../events/eventFrames.ts'
import { fetchRequest, requestTarget } from '../../appRequest.ts'
import { toTanStackThread, type TanStackThread } from './tanStackThread.ts'

/**
 * TanStack AI's `useChat` is chosen explicitly: the app points its connection at the endpoint
 * with `?client=tanstack`, so every request it makes (the run's POST, hydration, rejoin) says so.
 * Its POST is already an AG-UI `RunAgentInput`; only what goes back differs.
 */
export function isTanStackRequest(request: Request): boolean {
  // Every request passes here: the URL is built and parsed only when its target may say so. (Under
  // `toNodeHandler` the target is as sent; Node's parser refuses one with a tab or line break, the
  // only characters the URL parser drops, so the raw target says what the URL would.)
  return requestTarget(request).includes('client=tanstack') && new URL(request.url).searchParams.get('client') === 'tanstack'
}

/**
 * A TanStack request: a POST's run events with interrupts in the shape its approval API answers
 * (the run tells them so where it writes them: events/eventFrames.ts; any other event stream is
 * rewritten from its body), or one of its GETs.
 */
export async function answerTanStack(
  config: ChatConfig,
  request: Request,
  post: (config: ChatConfig, request: Request) => Promise<Response>,
): Promise<Response> {
  if (request.method === 'POST') return answerTold(request, TANSTACK_FRAMES, () => post(config, request), asTanStackStream)
  if (request.method === 'GET') return readForTanStack(config, fetchRequest(request))
  throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Use POST to chat and GET to read a thread, not ${echoed(request.method)}`)
}

/**
 * TanStack's GETs: `?threadId=[&limit=&before=]` hydrates (JSON in its `UIMessage` shape), and
 * `?offset=-1&runId=` rejoins a run from its start (SSE). A rejoin names no thread: the run's log
 * does, and the thread is then read as any other, so the app's `authorize` decides.
 */
async function readForTanStack(config: ChatConfig, request: Request): Promise<Response> {
  const url = new URL(request.url)
  const runId = url.searchParams.get('runId')
  if (runId !== null && !url.searchParams.has('threadId')) {
    if (url.searchParams.get('offset') !== '-1') throw new HttpError(400, 'INVALID_REQUEST', 'A rejoin reads the run from its start: pass `offset=-1`', 'offset')
    if (!/^run_[\w-]{1,64}$/.test(runId)) throw new HttpError(400, 'INVALID_REQUEST', '`runId` is not a run id', 'runId')
    const threadId = await threadOfRun(config, runId)
    const attach = new URL(url)
    attach.searchParams.delete('offset')
    attach.searchParams.set('threadId', threadId)
    const headers = new Headers(request.headers)
    headers.set('accept', 'text/event-stream')
    return asTanStackStream(await read(config, new Request(attach, { headers, signal: request.signal })))
  }
  // Only the thread itself is TanStack's shape; every other read is the endpoint's own, as without `client`.
  if (url.searchParams.has('format')) throw new HttpError(400, 'INVALID_REQUEST', '`format` chooses another dialect than `client=tanstack`: pass one of them', 'format')
  if (OWN_READS.some((name) => url.searchParams.has(name))) return read(config, request)
  const threadId = url.searchParams.get('threadId')
  // TanStack picks a new thread's id itself and hydrates it before the first message: to a reader
  // `authorize` lets in, a thread not stored yet is an empty one.
  if (threadId !== null && !url.searchParams.has('attachmentId') && (await config.store.head(checkedThreadId(threadId))) === undefined) {
    await authorizeThread(config, request, threadId, 'read')
    return jsonResponse(200, EMPTY_THREAD)
  }
  const response = await read(config, request)
  if (!response.ok || !/^application\/json\b/.test(response.headers.get('content-type') ?? '')) return response
  const snapshot = (await response.json()) as ThreadSnapshot
  return jsonResponse(200, toTanStackThread(snapshot))
}

/** GETs that are not the thread: answered as they are (`GET ?decisions`, `?watch`, `?devtools`, `?review`, `?capabilities`). */
const OWN_READS = ['decisions', 'watch', 'devtools', 'review', 'capabilities']

const EMPTY_THREAD: TanStackThread = { messages: [], activeRun: null, interrupts: null, page: { truncated: false } }

/** The thread a run belongs to, as its first logged event (RUN_STARTED) names it. */
async function threadOfRun(config: ChatConfig, runId: string): Promise<string> {
  const logged = await config.eventLog.read(runId, 0)
  const started = logged?.events[0]
  const threadId = started?.seq === 1 ? (JSON.parse(started.data) as { threadId?: unknown }).threadId : undefined
  if (typeof threadId !== 'string') throw new HttpError(404, 'RUN_NOT_FOUND', `No events of run "${runId}" are kept; read the thread instead`, 'runId')
  return threadId
}
