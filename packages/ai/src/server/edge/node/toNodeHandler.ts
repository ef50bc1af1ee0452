import { errorBody } from '../responses.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { takeFrames, type FrameSink, type OfferedFrames } from '../../events/directFrames.ts'
import { NodeRequest, takesNodeRequest } from './nodeRequest.ts'
import { handlerReached, watchForUnreachedHandler } from './unreachedHandler.ts'

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>

/**
 * Adapts a Fetch handler to `node:http` (and Express/Connect, which pass the same objects; a body
 * an Express parser already read is taken from `req.body`).
 *
 * A handler from `createChatHandler` runs here without the Fetch objects' cost: it reads Node's
 * request directly (its `authorize` and `context` hooks still get a real `Request`), and a run's
 * frames go to the socket as they are written instead of through the response's body stream.
 * Any other handler, a chat handler wrapped in one included, gets a real `Request`, and its
 * response body is read as a stream.
 *
 * A client that disconnects aborts the request's signal and cancels the response stream. A run
 * it started goes on (another request can reattach to it); `stop` ends it.
 *
 * Until a request reaches it, a Toolgate client's POST that gets 404 elsewhere in the process is
 * warned about (`TOOLGATE_CHAT_NOT_REACHED`, naming the path): the handler is mounted where the
 * client does not post.
 */
export function toNodeHandler(handler: (request: Request) => Promise<Response>): NodeHandler {
  const lazy = takesNodeRequest(handler)
  watchForUnreachedHandler()
  // Not an async function: its frame would be held for the whole response. One promise, settled
  // when the response is written (or its frames' stream closes), is all a request makes here.
  return (req, res) => {
    handlerReached()
    let gone = false
    let onGone: (() => void)[] | undefined
    /** Ends the wait for a response whose frames go out as they come (`writeFrames`): one listener on close serves both. */
    let closed: (() => void) | undefined
    /** Ends the read of a small body whose client left halfway (`readSmall`). */
    let cutShort: (() => void) | undefined
    // `on`, not `once`: 'close' comes once, and `once` costs a wrapper per request.
    res.on('close', () => {
      closed?.()
      if (res.writableFinished) return
      gone = true
      cutShort?.()
      for (const listener of onGone ?? []) listener()
    })
    const body = requestBody(req, (cut) => (cutShort = cut))
    const request = new NodeRequest({
      req,
      url: () => urlOf(req),
      ...body?.content,
      gone: () => gone,
      onGone: (listener) => (onGone ??= []).push(listener),
    })
    // It never rejects: node:http drops what its listener returns, so a rejection would be
    // unhandled in the app's process (which Node ends by default).
    return new Promise<void>((settle) => {
      const respond = (response: Response) => {
        try {
          // A refusal may come before the body was read (413, 415): read the rest away so the client
          // gets the response rather than a reset connection, and the connection stays usable.
          if (!req.readableEnded) body?.discard()
          const frames = request.takeFrames()
          if (!frames) return void writeResponse(response, res).then(settle, unwritten)
          writeFrames(frames, res)
          if (res.closed) settle()
          else closed = settle
        } catch (error) {
          unwritten(error)
        }
      }
      const failed = (error: unknown) => {
        console.error('[toolgate] handler threw:', error)
        respond(Response.json(errorBody('INTERNAL', 'The chat handler failed; see the server log'), { status: 500 }))
      }
      /** The response could not be written (a header Node refuses): a 500 while nothing was sent, else the connection is cut. */
      const unwritten = (error: unknown) => {
        console.error('[toolgate] the response could not be written:', error)
        if (res.headersSent) res.destroy()
        else {
          for (const name of res.getHeaderNames()) res.removeHeader(name)
          res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody('INTERNAL', 'The chat handler failed; see the server log')))
        }
        settle()
      }
      try {
        // `Promise.resolve`: a handler that answers without a promise is served too (a native promise passes as it is).
        const answered = lazy ? Promise.resolve(handler(request as unknown as Request)) : request.realToRead().then(handler)
        answered.then(respond, failed)
      } catch (error) {
        failed(error)
      }
    })
  }
}

function urlOf(req: IncomingMessage): string {
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true
  const path = req.url ?? '/'
  const host = req.headers.host ?? 'localhost'
  const origin = `${secure ? 'https' : 'http'}://${host}`
  // Parsing the URL was a fiftieth of a short turn: a path and host `new URL` would keep as they
  // are are joined as they are; anything it might change (dot segments, escapes, a default port,
  // an uppercase or numeric or international host) goes through it.
  if (PLAIN_PATH.test(path) && !path.includes('/.') && PLAIN_HOST.test(host) && !host.includes('xn--') && !host.endsWith(secure ? ':443' : ':80')) return origin + path
  return new URL(path, origin).href
}

/** A path `new URL` keeps as written: no `//` start, escape, fragment, or character it would encode (a query's `'` included). */
const PLAIN_PATH = /^\/(?!\/)[\w\-.~!$&'()*+,;=:@/]*(?:\?[\w\-.~!$&()*+,;=:@/?]*)?$/
/** A host `new URL` keeps as written: lowercase names whose labels start with a letter (never read as IPv4), or 127.0.0.1; a port without leading zeros, up to 65535. */
const PLAIN_HOST = /^(?:[a-z][a-z0-9-]*(?:\.[a-z][a-z0-9-]*)*|127\.0\.0\.1)(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?$/

/** Beyond this, an unread body is not worth reading away: the connection is dropped instead. */
const MAX_DISCARD_BYTES = 16 * 1024 * 1024

/** A body that declares at most this many bytes is read before the handler runs: a chat message fits. */
const SMALL_BODY_BYTES = 64 * 1024

interface RequestBody {
  /** The whole body when it is small and declared so; else a web stream that reads on demand. */
  readonly content: { readonly whole: Promise<Uint8Array> } | { readonly stream: ReadableStream<Uint8Array> }
  /** Reads away whatever the handler left unread, without resetting the connection. */
  discard(): void
}

/**
 * The request body, and a way to read away whatever the handler left unread (cancelling the
 * stream does the same) without resetting the connection. A small body with a declared length
 * is handed over whole: a stream costs more than the few bytes of a chat message.
 */
function requestBody(req: IncomingMessage, onCut: (cut: () => void) => void): RequestBody | undefined {
  if (req.method === 'GET' || req.method === 'HEAD') return undefined
  const parsed = (req as { body?: unknown }).body
  if (req.readableEnded && parsed !== undefined) return { content: { whole: Promise.resolve(preParsed(parsed)) }, discard: () => {} }
  const declared = Number(req.headers['content-length'])
  if (req.headers['content-length'] !== undefined && declared <= SMALL_BODY_BYTES) {
    return { content: { whole: readSmall(req, onCut) }, discard: () => req.resume() }
  }
  let open = true
  let discarding = false
  let discarded = 0
  const discard = () => {
    if (discarding) return
    discarding = true
    open = false
    req.on('data', (chunk: Buffer) => {
      discarded += chunk.byteLength
      if (discarded > MAX_DISCARD_BYTES) req.socket.destroy()
    })
    req.resume()
  }
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.pause()
        req.on('data', (chunk: Buffer) => {
          if (!open) return
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
          if ((controller.desiredSize ?? 0) <= 0) req.pause()
        })
        req.once('end', () => open && ((open = false), controller.close()))
        req.once('error', (error) => open && ((open = false), controller.error(error)))
      },
      pull() {
        if (open) req.resume()
      },
      cancel: discard,
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  )
  return { content: { stream }, discard }
}

/**
 * Reads a body whose declared length is small (Node's parser holds it to that length). A client
 * that leaves mid-body closes the response with the connection, which calls `onCut`'s function (no
 * listener of its own on the request: a request that errs unheard is destroyed with its socket, and
 * Node emits its 'error' only to listeners).
 */
function readSmall(req: IncomingMessage, onCut: (cut: () => void) => void): Promise<Uint8Array> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    // `on`, not `once`: 'end' comes once.
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    // No partial JSON reaches the handler, and the request's signal is aborted.
    onCut(() => resolve(new Uint8Array()))
  })
}

/** Express-style body parsers ran first: hand their result on as the JSON it came from. */
function preParsed(body: unknown): Uint8Array {
  return body instanceof Uint8Array ? body : new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body))
}

/** A run's frames, as they come: the headers with the first of them, the last with the end. */
function writeFrames(frames: OfferedFrames, res: ServerResponse): void {
  res.writeHead(200, frames.headers)
  frames.attach(sinkOf(res))
}

function sinkOf(res: ServerResponse): FrameSink {
  return {
    write: (text) => void (res.destroyed || res.write(text)),
    end: (text) => void (res.destroyed || res.end(text)),
  }
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  res.statusCode = response.status
  const cookies = response.headers.getSetCookie()
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value)
  })
  if (cookies.length > 0) res.setHeader('set-cookie', cookies)
  if (!response.body) {
    res.end()
    return
  }
  // A run's frames go to the socket as they come, the headers with the first of them.
  if (takeFrames(response.body, sinkOf(res))) return new Promise((resolve) => res.once('close', resolve))
  res.flushHeaders()
  const reader = response.body.getReader()
  const stop = () => reader.cancel(new Error('The client disconnected')).catch(() => {})
  res.on('close', stop)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done || res.destroyed) break
      if (!res.write(value)) await drained(res)
    }
  } catch {
    // The stream failed or was cancelled because the client left; nothing more to send.
  } finally {
    res.off('close', stop)
    if (!res.destroyed) res.end()
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}
