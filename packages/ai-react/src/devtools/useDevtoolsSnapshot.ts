import { useEffect, useState } from 'react'
import type { DevtoolsSnapshot, ErrorBody } from '@toolgate/ai/protocol'

export interface DevtoolsSource {
  /** The chat endpoint, as given to `useChat` (a handler created with `devtools: true`). */
  readonly endpoint: string
  readonly threadId: string | undefined
  /** Sent with each read, e.g. the credentials `authorize` checks. */
  readonly headers?: HeadersInit | (() => HeadersInit)
  /** Read again this often while mounted. Default 1000 ms. */
  readonly refreshMs?: number
}

export type DevtoolsState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'loading' }
  | { readonly kind: 'ready'; readonly snapshot: DevtoolsSnapshot; readonly readAt: number }
  | { readonly kind: 'failed'; readonly message: string }

/** Reads `GET ?threadId=&devtools` now and every `refreshMs`, through the handler's authorized route. */
export function useDevtoolsSnapshot({ endpoint, threadId, headers, refreshMs = 1000 }: DevtoolsSource): DevtoolsState {
  const [state, setState] = useState<DevtoolsState>({ kind: 'idle' })
  useEffect(() => {
    if (!threadId) {
      setState({ kind: 'idle' })
      return
    }
    let live = true
    const controller = new AbortController()
    const read = async () => {
      const url = `${endpoint}${endpoint.includes('?') ? '&' : '?'}threadId=${encodeURIComponent(threadId)}&devtools`
      try {
        const response = await fetch(url, { headers: typeof headers === 'function' ? headers() : headers, signal: controller.signal, cache: 'no-store' })
        const body = (await response.json()) as DevtoolsSnapshot | ErrorBody
        if (!live) return
        if ('error' in body) setState({ kind: 'failed', message: `${body.error.code}: ${body.error.message}` })
        else setState({ kind: 'ready', snapshot: body, readAt: Date.now() })
      } catch (error) {
        if (live && !controller.signal.aborted) setState({ kind: 'failed', message: String((error as Error).message ?? error) })
      }
    }
    setState((previous) => (previous.kind === 'ready' && previous.snapshot.threadId === threadId ? previous : { kind: 'loading' }))
    void read()
    const timer = setInterval(() => void read(), refreshMs)
    return () => {
      live = false
      controller.abort()
      clearInterval(timer)
    }
    // `headers` as a function may change identity every render; a read picks up its latest value anyway.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [endpoint, threadId, refreshMs])
  return state
}
