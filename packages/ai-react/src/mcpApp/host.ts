import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge'
import type { ChatClient, Fetch, ToolCallPart } from '@toolgate/ai/client'

// The host side of an MCP App, loaded when the first `McpApp` mounts (it carries ext-apps'
// `AppBridge` and the MCP protocol it speaks: nothing of it is in the page before). The view runs
// in a double iframe: the outer one is the sandbox proxy the app serves from another origin
// (`mcp-app-sandbox.html`), the inner one the view, with no origin of its own, under a CSP built
// from its resource's `_meta.ui.csp`. Its `tools/call` goes to the chat endpoint as the thread's
// call (`POST { threadId, appCall }`): a gated tool waits for the person in the chat, like any call.

export interface HostOptions {
  readonly client: ChatClient<readonly never[]> | ChatClient
  readonly endpoint: string
  readonly threadId: string
  readonly call: ToolCallPart
  readonly sandbox: string
  readonly theme: 'light' | 'dark'
  readonly fetch: Fetch
  /** The view asked for a height (`ui/notifications/size-changed`). */
  onHeight(height: number): void
  onDisplayMode(mode: 'inline' | 'fullscreen'): void
  onError(message: string): void
}

export interface McpAppHost {
  /** The call changed (its result came): the view gets it once. */
  update(call: ToolCallPart): void
  theme(theme: 'light' | 'dark'): void
  close(): void
}

interface ResourceContents {
  readonly contents?: readonly { readonly text?: string; readonly _meta?: { readonly ui?: { readonly csp?: object; readonly permissions?: Record<string, unknown> } } }[]
  readonly error?: { readonly code: string; readonly message: string }
}

type CallToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean }

const HOST_INFO = { name: 'Toolgate', version: '0.1.0' }

/** Browser features a view may ask for, as Permission Policy names them. */
const FEATURES: Record<string, string> = { camera: 'camera', microphone: 'microphone', geolocation: 'geolocation', clipboardWrite: 'clipboard-write' }

export function mountMcpApp(frame: HTMLIFrameElement, options: HostOptions): McpAppHost {
  let closed = false
  let bridge: AppBridge | undefined
  let ready = false
  let call = options.call
  let resultSent = false
  const sendResult = () => {
    if (!ready || !bridge || resultSent) return
    const result = resultOf(call)
    if (!result) return
    resultSent = true
    void bridge.sendToolResult(result)
  }

  const start = async () => {
    const url = `${options.endpoint}${options.endpoint.includes('?') ? '&' : '?'}threadId=${encodeURIComponent(options.threadId)}&mcpApp=${encodeURIComponent(call.toolCallId)}`
    const response = await options.fetch(url, { headers: { accept: 'application/json' } })
    const body = (await response.json()) as ResourceContents
    const resource = body.contents?.[0]
    if (!response.ok || typeof resource?.text !== 'string') throw new Error(body.error?.message ?? `The app could not be read (${response.status})`)
    if (closed) return
    const { csp, permissions } = resource._meta?.ui ?? {}
    const allow = Object.keys(permissions ?? {}).flatMap((name) => (FEATURES[name] ? [FEATURES[name]] : []))
    // The proxy is another origin: it may run scripts and keep its own origin; the view inside it gets neither ours nor its own.
    frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms')
    if (allow.length > 0) frame.setAttribute('allow', allow.join('; '))
    if (!frame.contentWindow) return
    bridge = new AppBridge(
      null,
      HOST_INFO,
      { serverTools: {}, openLinks: {}, logging: {} },
      { hostContext: { theme: options.theme, platform: 'web', displayMode: 'inline', availableDisplayModes: ['inline', 'fullscreen'] } },
    )
    const html = resource.text
    bridge.addEventListener('sandboxready', () => void bridge?.sendSandboxResourceReady({ html, ...(csp ? { csp } : {}), ...(permissions ? { permissions } : {}) }))
    bridge.oninitialized = () => {
      ready = true
      void bridge?.sendToolInput({ arguments: (call.input ?? {}) as Record<string, unknown> })
      sendResult()
    }
    bridge.onsizechange = ({ height }) => {
      if (typeof height === 'number' && height > 0) options.onHeight(Math.ceil(height))
    }
    bridge.onrequestdisplaymode = async ({ mode }) => {
      const granted = mode === 'fullscreen' ? 'fullscreen' : 'inline'
      options.onDisplayMode(granted)
      bridge?.setHostContext({ theme: currentTheme, platform: 'web', displayMode: granted, availableDisplayModes: ['inline', 'fullscreen'] })
      return { mode: granted }
    }
    bridge.onopenlink = async ({ url: link }) => {
      // Only web links, opened apart from this page: never `javascript:` or a data URL.
      if (!/^https?:\/\//i.test(link)) return { isError: true }
      window.open(link, '_blank', 'noopener,noreferrer')
      return {}
    }
    bridge.oncalltool = (params) => callTool(options, call.toolCallId, params.name, (params.arguments ?? {}) as Record<string, unknown>)
    // Listening before the proxy loads: it says it is ready as soon as it runs. Its window is the frame's for good.
    await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow))
    if (!closed) frame.src = `${options.sandbox}#${encodeURIComponent(location.origin)}`
  }
  let currentTheme = options.theme
  start().catch((error: unknown) => {
    if (!closed) options.onError(error instanceof Error ? error.message : String(error))
  })

  return {
    update(next) {
      call = next
      sendResult()
    },
    theme(theme) {
      if (theme === currentTheme) return
      currentTheme = theme
      if (ready) bridge?.setHostContext({ theme, platform: 'web' })
    },
    close() {
      closed = true
      void bridge?.close()
    },
  }
}

/** The call's result as `tools/call` answers it; `undefined` while it has none. */
function resultOf(call: ToolCallPart): CallToolResult | undefined {
  switch (call.state) {
    case 'output-available': {
      const { output } = call
      const structured = typeof output === 'object' && output !== null && !Array.isArray(output) ? { structuredContent: output as Record<string, unknown> } : {}
      return { content: [{ type: 'text', text: JSON.stringify(output) ?? 'null' }], ...structured }
    }
    case 'output-error':
      return { content: [{ type: 'text', text: call.error }], isError: true }
    case 'denied':
      return { content: [{ type: 'text', text: `Denied${call.approval?.denyReason ? `: ${call.approval.denyReason}` : ''}` }], isError: true }
    case 'expired':
    case 'cancelled':
      return { content: [{ type: 'text', text: `The call was ${call.state}` }], isError: true }
    default:
      return undefined
  }
}

/**
 * The view's `tools/call`, as the thread's call: its run's stream says the result, or that it waits
 * for a person; the chat then loads the thread (it shows the call, and its approval), and the
 * answer is the call's result once the chat has it.
 */
async function callTool(options: HostOptions, hostCallId: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const { client, endpoint, threadId } = options
  const response = await options.fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ threadId, appCall: { toolCallId: hostCallId, name, arguments: args } }),
  })
  if (!response.ok) {
    const refusal = (await response.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined
    return { content: [{ type: 'text', text: refusal?.error ? `${refusal.error.code}: ${refusal.error.message}` : `Refused (${response.status})` }], isError: true }
  }
  const callId = callIdOf(await response.text())
  await client.load()
  if (!callId) return { content: [{ type: 'text', text: 'The call did not run' }], isError: true }
  return new Promise((resolve) => {
    const check = () => {
      const part = findCall(client, callId)
      const result = part && resultOf(part)
      if (!result) return false
      unsubscribe()
      resolve(result)
      return true
    }
    const unsubscribe = client.subscribe(check)
    check()
  })
}

/** The id of the call the app's run made (its first `TOOL_CALL_START`). */
function callIdOf(stream: string): string | undefined {
  for (const line of stream.split('\n')) {
    if (!line.startsWith('data: ')) continue
    const event = JSON.parse(line.slice(6)) as { type?: string; toolCallId?: string }
    if (event.type === 'TOOL_CALL_START') return event.toolCallId
  }
  return undefined
}

function findCall(client: HostOptions['client'], toolCallId: string): ToolCallPart | undefined {
  for (const message of client.getSnapshot().messages) {
    if (message.role !== 'assistant') continue
    for (const part of message.parts) if (part.type === 'tool-call' && part.toolCallId === toolCallId) return part as ToolCallPart
  }
  return undefined
}
