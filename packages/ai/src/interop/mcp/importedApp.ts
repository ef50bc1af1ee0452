import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolApp, ToolAppResource, ToolAppVisibility } from '../../tools/app.ts'
import { isRecord } from '../../util/isRecord.ts'
import type { McpConnection } from './connection.ts'

// An imported tool keeps its MCP App (SEP-1865): a listed tool whose `_meta.ui.resourceUri` names a
// `ui://` resource gets `app`, whose `read()` asks the server for it (`resources/read`) when a host
// shows it, and maps the resource's `_meta.ui` to the one shape every side reads (tools/app.ts).

/** The app a listed tool names, if any. */
export function importedApp(connection: McpConnection, listed: Tool): ToolApp | undefined {
  const ui = isRecord(listed._meta?.ui) ? listed._meta.ui : undefined
  // `ui/resourceUri` is the key before ext-apps 1.0 nested it under `ui`.
  const uri = ui?.resourceUri ?? listed._meta?.['ui/resourceUri']
  if (typeof uri !== 'string' || !uri.startsWith('ui://')) return undefined
  const visibility: readonly ToolAppVisibility[] = Array.isArray(ui?.visibility) && ui.visibility.length > 0 && ui.visibility.every((who) => who === 'model' || who === 'app') ? (ui.visibility as ToolAppVisibility[]) : ['model', 'app']
  return Object.freeze({ uri: uri as `ui://${string}`, visibility, read: () => readApp(connection, uri) })
}

async function readApp(connection: McpConnection, uri: string): Promise<ToolAppResource> {
  const { contents } = await connection.readResource(uri)
  const content = contents.find((entry) => entry.uri === uri) ?? contents[0]
  if (!content) throw new Error(`The MCP server returned no content for ${uri}`)
  const html = 'text' in content && typeof content.text === 'string' ? content.text : 'blob' in content && typeof content.blob === 'string' ? decodeBase64(content.blob) : undefined
  if (html === undefined) throw new Error(`The MCP server's ${uri} is neither text nor a blob`)
  const meta = isRecord(content._meta?.ui) ? content._meta.ui : {}
  return {
    html,
    ...(isRecord(meta.csp) ? { csp: pickLists(meta.csp, ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains']) } : {}),
    ...(isRecord(meta.permissions) ? { permissions: pickObjects(meta.permissions, ['camera', 'microphone', 'geolocation', 'clipboardWrite']) } : {}),
    ...(typeof meta.domain === 'string' ? { domain: meta.domain } : {}),
    ...(typeof meta.prefersBorder === 'boolean' ? { prefersBorder: meta.prefersBorder } : {}),
  }
}

/** Only the lists a CSP is built from, each of strings: a server's other keys never reach the host. */
function pickLists(value: Record<string, unknown>, keys: readonly string[]): Record<string, string[]> {
  const picked: Record<string, string[]> = {}
  for (const key of keys) {
    const list = value[key]
    if (Array.isArray(list)) picked[key] = list.filter((item): item is string => typeof item === 'string')
  }
  return picked
}

function pickObjects(value: Record<string, unknown>, keys: readonly string[]): Record<string, {}> {
  const picked: Record<string, {}> = {}
  for (const key of keys) if (isRecord(value[key])) picked[key] = {}
  return picked
}

function decodeBase64(data: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(data), (char) => char.charCodeAt(0)))
}
