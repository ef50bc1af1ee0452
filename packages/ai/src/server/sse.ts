import type { ChatEvent } from '../protocol/events.ts'

export type Emit = (event: ChatEvent) => void

/**
 * Streams events as Server-Sent Events (`data: <json>\n\n`, as AG-UI's HTTP clients read them).
 * The run is aborted when the client disconnects (the request's signal) or stops reading (the
 * stream is cancelled), whichever the server reports.
 */
export function eventStreamResponse(requestSignal: AbortSignal, run: (emit: Emit, signal: AbortSignal) => Promise<void>): Response {
  const abort = new AbortController()
  const onDisconnect = () => abort.abort(requestSignal.reason)
  if (requestSignal.aborted) onDisconnect()
  else requestSignal.addEventListener('abort', onDisconnect, { once: true })

  const encoder = new TextEncoder()
  let open = true
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const emit: Emit = (event) => {
        if (open) controller.enqueue(encoder.encode(`data: ${JSON.stringify(event)}\n\n`))
      }
      // Not awaited: `start` must return for the stream to flow while the run goes on.
      run(emit, abort.signal)
        .catch((error) => console.error('[toolgate] chat run failed:', error))
        .finally(() => {
          requestSignal.removeEventListener('abort', onDisconnect)
          if (open) {
            open = false
            controller.close()
          }
        })
    },
    cancel(reason) {
      open = false
      abort.abort(reason)
    },
  })
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      // Tells nginx-style proxies not to buffer the stream.
      'x-accel-buffering': 'no',
    },
  })
}
