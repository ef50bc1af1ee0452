import type { ToolApp } from '../../tools/app.ts'
import { appOfCall } from '../claim/appCall.ts'
import type { ChatConfig } from '../options.ts'
import type { ThreadHead } from '../thread/threadStore.ts'
import { jsonResponse } from './responses.ts'

// `GET ?threadId=&mcpApp=<toolCallId>`: the MCP App a call of the thread renders, read from its
// tool (`toolApp(tool).read()`, an imported tool's from its server), as MCP's `resources/read` answers.
// Only a call the thread holds, of a tool of this handler: never a URI the browser names.

/** The mime type of an MCP App's view (ext-apps' `RESOURCE_MIME_TYPE`). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app'

/** `app`'s resource as `resources/read` returns it: its HTML, and what the view may reach in `_meta.ui`. */
export async function resourceContents(app: ToolApp) {
  const { html, csp, permissions, domain, prefersBorder } = await app.read()
  const ui = { ...(csp ? { csp } : {}), ...(permissions ? { permissions } : {}), ...(domain ? { domain } : {}), ...(prefersBorder === undefined ? {} : { prefersBorder }) }
  return { contents: [{ uri: app.uri, mimeType: MCP_APP_MIME_TYPE, text: html, _meta: { ui } }] }
}

/** The app of call `toolCallId` of the thread (404 `MCP_APP_NOT_FOUND` when the thread has no such call, or its tool no app), to a reader of the thread. */
export async function mcpAppResponse(config: ChatConfig, head: ThreadHead, toolCallId: string): Promise<Response> {
  return jsonResponse(200, await resourceContents(await appOfCall(config, head, toolCallId)))
}
