import { useEffect, useRef, useState } from 'react'
import type { DevtoolsSnapshot, ErrorBody } from '@toolgate/ai/protocol'

export interface DevtoolsSource {
  /** The chat endpoint, as given to `useChat` (a handler created with `devtools: true`). */
  readonly endpoint: string
  readonly threadId: string | undefined
  /** Sent with each read, e.g. the credentials `authorize` checks. */
  readonly headers?: HeadersInit | (() => HeadersInit)
  /** Read again this often while mounted. Default 1000 ms. */
  readonly refreshMs?: number
  /** The `fetch` to read with (as `useChat`'s option). Default: the global one. */
  readonly fetch?: (input: string, init: RequestInit) => Promise<Response>
}

export type DevtoolsState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'loading' }
  | { readonly kind: 'ready'; readonly snapshot: DevtoolsSnapshot; readonly readAt: number }
  | { readonly kind: 'failed'; readonly message: string }

/** Reads `GET ?threadId=&devtools` now and every `refreshMs`, through the handler's authorized route. */
export function useDevtoolsSnapshot({ endpoint, threadId, headers, refreshMs = 1000, fetch }: DevtoolsSource): DevtoolsState {
  const [state, setState] = useState<DevtoolsState>({ kind: 'idle' })
  // The latest `headers` and `fetch`, read at each request: inline values change identity every render.
  const request = useRef({ headers, fetch })
  request.current = { headers, fetch }
  useEffect(() => {
    if (!threadId) {
      setState({ kind: 'idle' })
      return
    }
    let live = true
    const controller = new AbortController()
    const load = async () => {
      const url = `${endpoint}${endpoint.includes('?') ? '&' : '?'}threadId=${encodeURIComponent(threadId)}&devtools`
      try {
        const { headers, fetch } = request.current
        const init: RequestInit = { headers: typeof headers === 'function' ? headers() : headers, signal: controller.signal, cache: 'no-store' }
        const response = await (fetch ? fetch(url, init) : globalThis.fetch(url, init))
        const body = (await response.json()) as DevtoolsSnapshot | ErrorBody
        if (!live) return
        if ('error' in body) setState({ kind: 'failed', message: `${body.error.code}: ${body.error.message}` })
        else setState({ kind: 'ready', snapshot: body, readAt: Date.now() })
      } catch (error) {
        if (live && !controller.signal.aborted) setState({ kind: 'failed', message: String((error as Error).message ?? error) })
      }
    }
    setState((previous) => (previous.kind === 'ready' && previous.snapshot.threadId === threadId ? previous : { kind: 'loading' }))
    void load()
    const timer = setInterval(() => void load(), refreshMs)
    return () => {
      live = false
      controller.abort()
      clearInterval(timer)
    }
  }, [endpoint, threadId, refreshMs])
  return state
}
