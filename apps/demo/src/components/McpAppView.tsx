import { createContext, useContext } from 'react'
import type { ChatClient, ToolCallPart } from '@toolgate/ai/client'
import { McpApp } from '@toolgate/ai-react/mcp-app'

/** The chat's client, for the MCP Apps among its calls (their own calls show in it). */
export const ChatClientContext = createContext<ChatClient | undefined>(undefined)

/** The server's tools whose calls render their MCP App (server-only definitions: the page has no type for them). */
export const APP_TOOLS = new Set(['show_rooms'])

/**
 * The sandbox proxy from another origin than the page: the demo serves it itself, so a page on
 * localhost frames it from 127.0.0.1, and a page on any other host from localhost.
 */
function sandboxUrl(): string {
  const url = new URL('/mcp-app-sandbox.html', location.href)
  url.hostname = url.hostname === 'localhost' ? '127.0.0.1' : 'localhost'
  return url.href
}

export function McpAppView({ part }: { readonly part: ToolCallPart }) {
  const client = useContext(ChatClientContext)
  // The page's theme as it is when the call renders (set_theme changes it; the view follows on its next render).
  const theme = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light'
  if (!client) return null
  return <McpApp client={client} endpoint="/api/chat" sandbox={sandboxUrl()} call={part} theme={theme} className="mcp-app" />
}
