// What the handler reads of a request, whatever made it. The Node bridge (edge/node/) hands the
// handler a stand-in that reads Node's request only as needed: a header without building `Headers`,
// a whole body in one piece, the real Fetch `Request` only when the app's own hooks (`authorize`,
// `identify`, `context`) ask for it. A leaf, so the thread, the config and the edge ask without
// knowing of Node.

/** The key under which a stand-in request answers for itself. */
export const STAND_IN: unique symbol = Symbol('toolgate.standIn')

/** What a stand-in answers without building the real request. */
export interface StandIn {
  /** The request target as sent (path and query): its absolute URL is not built. */
  readonly target: string
  header(name: string): string | null
  /** The body in one piece, when it is read whole; `undefined` for one to stream. */
  wholeBody(): Promise<Uint8Array> | undefined
  /** The real `Request`, made once. */
  real(): Request
}

function standIn(request: Request): StandIn | undefined {
  return (request as { [STAND_IN]?: StandIn })[STAND_IN]
}

/** What the app's own code gets: a real `Request` (a stand-in cannot be cloned or passed to `fetch`). */
export function fetchRequest(request: Request): Request {
  const stand = standIn(request)
  return stand === undefined ? request : stand.real()
}

/** Where to look for a query parameter before parsing the URL: a stand-in's target as sent, any other request's URL. */
export function requestTarget(request: Request): string {
  const stand = standIn(request)
  return stand === undefined ? request.url : stand.target
}

/** One header of any request, without building a stand-in's `Headers`. */
export function requestHeader(request: Request, name: string): string | null {
  const stand = standIn(request)
  return stand === undefined ? request.headers.get(name) : stand.header(name)
}

/** A stand-in's body in one piece, when it is read whole (a chat message); else `undefined`. */
export function wholeBody(request: Request): Promise<Uint8Array> | undefined {
  return standIn(request)?.wholeBody()
}
