import { InvalidOptionError } from '../../errors.ts'
import { toolApp, type ToolApp, type ToolAppResource } from '../../tools/app.ts'
import type { McpServableTool } from './types.ts'

// Tools served as MCP Apps (ext-apps, SEP-1865): a tool with an `app` is listed with
// `_meta.ui.resourceUri` (and `_meta.ui.visibility` when it is not the default, model and app),
// and its view is a `ui://` resource, read as `text/html;profile=mcp-app` with its `_meta.ui`.

/** ext-apps' MIME type for an app's view (`RESOURCE_MIME_TYPE`). */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app'

/** What a served tool's `_meta` carries of its app: ext-apps' `ui`, and the flat `ui/resourceUri` older hosts read. */
export function appToolMeta(app: ToolApp): Record<string, unknown> {
  const everyone = app.visibility.includes('model') && app.visibility.includes('app')
  return { ui: { resourceUri: app.uri, ...(everyone ? {} : { visibility: [...app.visibility] }) }, 'ui/resourceUri': app.uri }
}

export interface ServedApp {
  readonly app: ToolApp
  /** The tools whose calls render in it (the first names the resource). */
  readonly tools: readonly McpServableTool[]
}

/** The apps of the tools, by URI; two different apps under one URI fail at registration. */
export function servedApps(tools: readonly McpServableTool[]): Map<string, ServedApp> {
  const apps = new Map<string, ServedApp>()
  for (const tool of tools) {
    // Checked here, at registration: a malformed `app` fails startup, not a call.
    const app = toolApp(tool)
    if (!app) continue
    const served = apps.get(app.uri)
    if (served && served.app !== app) {
      throw new InvalidOptionError('registerMcpTools', 'tools', `has "${served.tools[0]!.name}" and "${tool.name}" with two different apps at ${app.uri}; give tools that share a view the same \`app\``)
    }
    apps.set(app.uri, { app, tools: [...(served?.tools ?? []), tool] })
  }
  return apps
}

/** The `resources/list` entry of an app's view. */
export function appResourceEntry({ app, tools }: ServedApp) {
  const tool = tools[0]!
  return { uri: app.uri, name: tool.title ?? tool.name, description: `The view of ${tools.map((each) => `"${each.name}"`).join(', ')}`, mimeType: MCP_APP_MIME_TYPE }
}

/** What `resources/read` returns of an app's view: its HTML, with what it may reach and how it wants to be shown in `_meta.ui`. */
export async function readAppResource(app: ToolApp) {
  const { html, ...meta } = await app.read()
  return { contents: [{ uri: app.uri, mimeType: MCP_APP_MIME_TYPE, text: html, ...uiMeta(meta) }] }
}

function uiMeta(meta: Omit<ToolAppResource, 'html'>): { _meta?: { ui: Record<string, unknown> } } {
  const ui: Record<string, unknown> = {}
  if (meta.csp !== undefined) ui.csp = meta.csp
  if (meta.permissions !== undefined) ui.permissions = meta.permissions
  if (meta.domain !== undefined) ui.domain = meta.domain
  if (meta.prefersBorder !== undefined) ui.prefersBorder = meta.prefersBorder
  return Object.keys(ui).length > 0 ? { _meta: { ui } } : {}
}
