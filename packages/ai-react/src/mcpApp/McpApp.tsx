import { createElement, useEffect, useRef, useState, type CSSProperties } from 'react'
import type { AnyTool } from '@toolgate/ai'
import type { ChatClient, Fetch, ToolCallPart } from '@toolgate/ai/client'
import type { McpAppHost } from './host.ts'

export interface McpAppProps {
  /** The chat's client (`useChat().client`): the app's own calls show in it, and wait there for approval. */
  readonly client: ChatClient<readonly AnyTool[]>
  /** The chat endpoint, as given to `useChat`. */
  readonly endpoint: string
  /** The call whose app to show (a tool with `app`). */
  readonly call: ToolCallPart
  /** The sandbox proxy's URL (`@toolgate/ai-react/mcp-app-sandbox.html`, served from another origin than this page). */
  readonly sandbox: string
  readonly theme?: 'light' | 'dark'
  /** As `useChat`'s `fetch`, for the app's reads and calls. */
  readonly fetch?: Fetch
  readonly className?: string
}

/**
 * A tool call's MCP App: its view in a sandboxed iframe served from `sandbox`'s origin, spoken to
 * over ext-apps' `ui/*` bridge (tool input and result, the view's own tool calls, size, display
 * mode, theme). The bridge is loaded when the first app mounts, not with the page.
 */
export function McpApp({ client, endpoint, call, sandbox, theme = 'light', fetch = globalThis.fetch.bind(globalThis), className }: McpAppProps) {
  const frame = useRef<HTMLIFrameElement>(null)
  const host = useRef<McpAppHost | undefined>(undefined)
  const [height, setHeight] = useState(0)
  const [fullscreen, setFullscreen] = useState(false)
  const [error, setError] = useState<string>()
  const threadId = client.getSnapshot().threadId
  const latest = useRef({ call, theme })
  latest.current = { call, theme }

  useEffect(() => {
    if (!frame.current || threadId === undefined) return
    let gone = false
    const element = frame.current
    void import('./host.ts').then(({ mountMcpApp }) => {
      if (gone) return
      host.current = mountMcpApp(element, {
        client,
        endpoint,
        threadId,
        sandbox,
        fetch,
        ...latest.current,
        onHeight: setHeight,
        onDisplayMode: (mode) => setFullscreen(mode === 'fullscreen'),
        onError: setError,
      })
    }, (failure: unknown) => setError(String(failure)))
    return () => {
      gone = true
      host.current?.close()
      host.current = undefined
    }
    // One view per call: a new result or theme is told to the view, never a reload.
  }, [client, endpoint, sandbox, threadId, call.toolCallId])
  useEffect(() => host.current?.update(call), [call])
  useEffect(() => host.current?.theme(theme), [theme])

  if (error) return createElement('div', { role: 'alert', className }, `The app could not be shown: ${error}`)
  const style: CSSProperties = fullscreen ? { position: 'fixed', inset: 0, width: '100vw', height: '100vh', border: 0, zIndex: 1000, background: 'Canvas' } : { width: '100%', height: height || 120, border: 0, display: 'block' }
  return createElement('iframe', { ref: frame, sandbox: 'allow-scripts allow-same-origin allow-forms', title: `${call.toolName} app`, className, style, 'data-display-mode': fullscreen ? 'fullscreen' : 'inline' })
}
