import { replayResponse } from '../events/replay.ts'
import type { AttachmentStore } from '../thread/attachmentStore.ts'
import type { ChatConfig } from '../options.ts'
import { HttpError } from '../errors.ts'
import { capabilitiesOf } from './capabilities.ts'

import { authorizeThread, isRunning, loadHead, mayAccess, snapshot } from '../thread/thread.ts'
import type { ThreadHead } from '../thread/threadStore.ts'
import type { ThreadSnapshot } from '../../protocol/thread.ts'
import { storedHistory } from '../thread/storedHistory.ts'
import { takeOverLostRun } from '../claim/takeOver.ts'
import { reviewView } from '../claim/reviews.ts'
import { settleDueExpiries } from '../run/expiry.ts'
import { checkedThreadId } from './requests.ts'
import { jsonResponse } from './responses.ts'
import { checkShownDecisions, verifiedDecisions } from '../decisions/records.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import { requestHeader } from '../appRequest.ts'
import { devtoolsSnapshot } from '../devtools/devtoolsSnapshot.ts'
import { watchResponse } from './watch.ts'
import { mcpAppResponse } from './mcpApps.ts'

// GET: reading a thread (whole, or a page at a time), (re)attaching to a run's events, and
// serving a tool's file. Nothing here writes, except a takeover of a run found dead and the
// settling of an approval found expired. A read always reads the thread's head from the store
// (beside a shared store, another instance may have written since this one did); the messages
// that head counts come from this instance's cache when it is the very head kept
// (thread/storedHistory.ts), so a read on the instance that wrote last waits for that one read.

/** `GET ?threadId=&attachmentId=`: the file, to a reader of the thread (authorized by the caller). */
export async function attachmentResponse(store: AttachmentStore, threadId: string, id: string): Promise<Response> {
  const stored = await store.get(threadId, id)
  if (!stored) throw new HttpError(404, 'ATTACHMENT_NOT_FOUND', `Thread "${threadId}" has no attachment "${id}"`, 'attachmentId')
  const inline = /^image\/(png|jpeg|gif|webp|avif|svg\+xml)$/.test(stored.mediaType)
  const filename = (stored.filename ?? id).replace(/[^\w.-]+/g, '_')
  return new Response(stored.data as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: {
      'content-type': stored.mediaType,
      'content-length': String(stored.data.byteLength),
      'content-disposition': `${inline ? 'inline' : 'attachment'}; filename="${filename}"`,
      // A tool's file is untrusted content: never sniffed, never scripted (an SVG opened directly runs nothing).
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
      'cache-control': 'private, max-age=3600, immutable',
    },
  })
}

/** How a dialect tells what a GET reads, when the request asks for its `?format=` (the AI SDK's: dialects/aisdk/uiMessageChat.ts). */
export interface ReadFormat {
  /** A run's AG-UI event stream (or any other answer to `attach`, or its refusal), as the dialect's stream. */
  events(attach: () => Promise<Response>): Promise<Response>
  /** The thread, as the dialect's JSON. */
  thread(snapshot: ThreadSnapshot): unknown
}

/**
 * `GET ?threadId=`: the thread. `&watch=<version>`: waits until the thread is past that version (`watch.ts`). `&decisions`: its decision records, checked against their digests
 * (500 `DECISION_RECORD_ALTERED` if the store's copy was changed). `&limit=N` returns only its last N stored messages, and
 * `&before=I` those before index I, so a long thread can be read a page at a time.
 */
export async function read(config: ChatConfig, request: Request, format?: ReadFormat): Promise<Response> {
  const params = new URL(request.url).searchParams
  const param = params.get('threadId')
  const kind = !param ? 'capabilities' : params.has('devtools') ? 'devtools' : wantsEventStream(request) ? 'attach' : 'read'
  config.telemetry?.describeRequest(request, { kind, threadId: param ?? undefined })
  if (!param && params.has('capabilities')) return jsonResponse(200, capabilitiesOf(config))
  const token = params.get('review')
  if (token !== null) return jsonResponse(200, await reviewView(config, request, token))
  if (!param) throw new HttpError(400, 'INVALID_REQUEST', 'Pass the thread to read as `?threadId=`', 'threadId')
  const threadId = checkedThreadId(param)
  if (kind === 'devtools') return jsonResponse(200, await devtoolsSnapshot(config, request, threadId))
  if (params.has('watch')) return watchResponse(config, request, threadId, indexParam(params, 'watch') ?? 0)
  // The AI SDK's `useChat` (dialects/aisdk/): its reconnect reads the run as a UI message stream, a reload the thread as UIMessages.
  const told = params.get('format') === 'ai-sdk' ? format : undefined
  if (told && (kind === 'attach' || params.has('stream'))) return told.events(() => attach(config, request, threadId, params))
  if (kind === 'attach') return attach(config, request, threadId, params)
  const limit = indexParam(params, 'limit')
  const before = indexParam(params, 'before')
  // An approval past its expiry is settled by the first reader: whoever reads sees it expired (or escalated).
  const head = await settleDueExpiries(config, await loadHead(config, request, threadId, 'read'), request)
  const mcpApp = params.get('mcpApp')
  if (mcpApp !== null) return mcpAppResponse(config, head, mcpApp)
  if (params.has('decisions')) return jsonResponse(200, { threadId: head.id, decisions: await verifiedDecisions(config, head, await storedHistory(config, head)) })
  const attachmentId = params.get('attachmentId')
  if (attachmentId && !/^[\w.:-]{1,128}$/.test(attachmentId)) throw new HttpError(400, 'INVALID_REQUEST', '`attachmentId` is not an attachment id', 'attachmentId')
  if (attachmentId) return attachmentResponse(config.attachments, head.id, attachmentId)
  if (told) return jsonResponse(200, told.thread(snapshot(head, await shownHistory(config, head), config.limits.runLeaseMs, config.tools)))
  if (limit === undefined && before === undefined) {
    return jsonResponse(200, snapshot(head, await shownHistory(config, head), config.limits.runLeaseMs, config.tools))
  }
  const to = Math.min(before ?? head.messageCount, head.messageCount)
  const from = Math.max(0, to - (limit ?? to))
  const messages = await shownHistory(config, head, from, to)
  const window = { from, total: head.messageCount }
  return jsonResponse(200, snapshot(head, messages, config.limits.runLeaseMs, config.tools, { window, withStep: to === head.messageCount }))
}

/** The messages a read shows, once the decisions they (and the head) show are checked against the signed records. */
async function shownHistory(config: ChatConfig, head: ThreadHead, from?: number, to?: number): Promise<readonly ThreadMessage[]> {
  const messages = await storedHistory(config, head, from, to)
  await checkShownDecisions(config, head, messages)
  return messages
}

function wantsEventStream(request: Request): boolean {
  return /\btext\/event-stream\b/i.test(requestHeader(request, 'accept') ?? '')
}

/**
 * `GET ?threadId=` with `Accept: text/event-stream`: (re)attaches to a run's events. With
 * `Last-Event-ID: <runId>:<seq>` (or `&runId=&after=`), the events after that one, then the live
 * ones; without, the thread's active run from its start, or 204 when none streams. 404
 * `RUN_NOT_FOUND` when the run's events are no longer kept: read the thread instead.
 */
function attach(config: ChatConfig, request: Request, threadId: string, params: URLSearchParams): Promise<Response> {
  return followRun(config, request, threadId, replayPoint(request, params))
}

/**
 * The events of the thread's run `from.runId` after `from.after` (else of its live run, else 204), to
 * a reader of the thread: `request` is authorized to read it, and its signal ends the stream. `read`:
 * the stored head as the caller just read it (an AG-UI rejoin), so it is not read twice.
 */
export async function followRun(config: ChatConfig, request: Request, threadId: string, from: { runId: string; after: number } | undefined, read?: ThreadHead): Promise<Response> {
  const head = read ? (await authorizeThread(config, request, threadId, 'read'), read) : await loadHead(config, request, threadId, 'read')
  const active = isRunning(head, config.limits.runLeaseMs) ? head.activeRun?.runId : undefined
  const runId = from?.runId ?? active
  if (runId === undefined) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } })
  const runs = {
    isLive: async (id: string) => {
      const current = await config.store.head(threadId)
      return current !== undefined && current.activeRun?.runId === id && isRunning(current, config.limits.runLeaseMs)
    },
    // Continuing a dead run's turn writes (the model is called, tools run under this request's
    // context): a reader who may only read is told that a writer must, and nothing is written.
    takeOver: async (id: string) => ((await mayAccess(config, request, threadId, 'write')) ? takeOverLostRun(config, request, threadId, id) : WRITER_NEEDED),
  }
  // Run ids are not guessable, but a run of another thread must not be read through this one: the
  // run's first event, RUN_STARTED, must name this thread, whatever position the reader resumes
  // from (a read after it would not show it). The thread's active run is its own.
  if (runId !== active) {
    const logged = await config.eventLog.read(runId, 0, 1, threadId) // its first event only, whatever the run's length
    if (logged === undefined || !belongsTo(logged.events, threadId)) {
      throw new HttpError(404, 'RUN_NOT_FOUND', `No events of run "${runId}" are kept; read the thread instead`, 'runId')
    }
  }
  return replayResponse(config.eventLog, threadId, { runId, after: from?.after ?? 0 }, request.signal, runs)
}

const WRITER_NEEDED = { refused: 'The run stopped without finishing; it continues when someone who may write to this thread reattaches or sends a message' } as const

/** Whether logged events are of this thread: every run's first event, RUN_STARTED, names it. */
function belongsTo(events: readonly { readonly seq: number; readonly data: string }[], threadId: string): boolean {
  const started = events[0]
  if (started?.seq !== 1) return false
  return (JSON.parse(started.data) as { threadId?: string }).threadId === threadId
}

function replayPoint(request: Request, params: URLSearchParams): { runId: string; after: number } | undefined {
  const lastEventId = requestHeader(request, 'last-event-id')
  if (lastEventId) {
    const match = /^(run_[\w-]{1,64}):(\d{1,9})$/.exec(lastEventId)
    if (!match) throw new HttpError(400, 'INVALID_REQUEST', '`Last-Event-ID` must be `<runId>:<seq>` as the stream sent it', 'Last-Event-ID')
    return { runId: match[1]!, after: Number(match[2]) }
  }
  const runId = params.get('runId')
  if (runId === null) return undefined
  if (!/^run_[\w-]{1,64}$/.test(runId)) throw new HttpError(400, 'INVALID_REQUEST', '`runId` is not a run id', 'runId')
  return { runId, after: indexParam(params, 'after') ?? 0 }
}

function indexParam(params: URLSearchParams, name: string): number | undefined {
  const value = params.get(name)
  if (value === null) return undefined
  if (!/^\d{1,9}$/.test(value)) throw new HttpError(400, 'INVALID_REQUEST', `\`${name}\` must be a non-negative integer`, name)
  return Number(value)
}
