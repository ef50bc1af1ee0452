import type { IncomingMessage, ServerResponse } from 'node:http'

// A chat handler mounted where the app's client does not post (`app.use('/chat', ...)` beside a
// client that posts to `/api/chat`): the router answers 404 and the handler never hears of it.
// Nothing at startup tells such a handler from one nobody has used yet; the first misrouted request
// does. Node publishes every response of every `node:http` server on `http.server.response.finish`,
// and a POST with the Toolgate client's own headers that ends 404 without passing through a
// `toNodeHandler` of this process is a chat request that went to the wrong path, whatever the app's
// routes are. The watch ends at the first request a handler is reached by (a 404 of the handler's
// own is never taken for one), so it costs nothing once the app works; on a runtime without the
// channel it does nothing.

const CHANNEL = 'http.server.response.finish'
/** What the browser client's POST sends (client/http/transport.ts); AI SDK and TanStack clients send their own. */
const CLIENT_ACCEPT = 'text/event-stream, application/json'

interface Channels {
  subscribe(name: string, listener: (message: unknown) => void): void
  unsubscribe(name: string, listener: (message: unknown) => void): boolean
}

/** One watch per process, even with two copies of the package loaded (each handler ends it when reached). */
interface Watch {
  channels?: Channels | undefined
  listener?: ((message: unknown) => void) | undefined
  warned: boolean
}
const WATCH = Symbol.for('toolgate.unreachedHandler')
const watch: Watch = ((globalThis as Record<symbol, Watch | undefined>)[WATCH] ??= { warned: false })

/** Watches (again) when a handler is made, until one is reached or the warning is given; once per process. */
export function watchForUnreachedHandler(): void {
  if (watch.listener || watch.warned) return
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  watch.channels ??= node?.getBuiltinModule?.('node:diagnostics_channel') as Channels | undefined
  if (!watch.channels) return
  watch.listener = onResponse
  watch.channels.subscribe(CHANNEL, onResponse)
}

/** A request reached a handler: the app routes chat requests to it, and the watch ends. */
export function handlerReached(): void {
  if (watch.listener) stop()
}

function onResponse(message: unknown): void {
  const { request, response } = message as { request: IncomingMessage; response: ServerResponse }
  if (response.statusCode !== 404 || request.method !== 'POST' || request.headers.accept !== CLIENT_ACCEPT) return
  if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) return
  stop()
  watch.warned = true
  const path = (request.url ?? '/').split('?')[0]
  const warning = `A Toolgate chat client's POST to ${path} got 404 and never reached the chat handler (toNodeHandler): mount the handler at ${path}, or set the client's \`endpoint\` to the path it is mounted on.`
  ;(globalThis as { process: { emitWarning(message: string, options: { code: string }): void } }).process.emitWarning(warning, { code: 'TOOLGATE_CHAT_NOT_REACHED' })
}

function stop(): void {
  if (watch.listener) watch.channels?.unsubscribe(CHANNEL, watch.listener)
  watch.listener = undefined
}
