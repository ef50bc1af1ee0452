import { ToolDefinitionError } from '../errors.ts'

/**
 * What an MCP App's view may reach (the `_meta.ui.csp` of its resource, as ext-apps names it).
 * Empty or omitted: nothing outside the view itself.
 */
export interface ToolAppCsp {
  /** Origins for fetch, XHR and WebSocket (`connect-src`). */
  readonly connectDomains?: readonly string[]
  /** Origins for images, scripts, styles, fonts and media. */
  readonly resourceDomains?: readonly string[]
  /** Origins the view may frame (`frame-src`). */
  readonly frameDomains?: readonly string[]
  /** Origins allowed for `<base href>` (`base-uri`). */
  readonly baseUriDomains?: readonly string[]
}

/** Browser features the view asks for (Permission Policy); a host grants only these. */
export interface ToolAppPermissions {
  readonly camera?: {}
  readonly microphone?: {}
  readonly geolocation?: {}
  readonly clipboardWrite?: {}
}

/** An MCP App's resource, as `resources/read` returns it (`text/html;profile=mcp-app`). */
export interface ToolAppResource {
  readonly html: string
  readonly csp?: ToolAppCsp
  readonly permissions?: ToolAppPermissions
  /** A dedicated sandbox origin the view asks for (host-dependent). */
  readonly domain?: string
  /** The view asks the host to draw a border around it. */
  readonly prefersBorder?: boolean
}

/** Who may call a tool that has an app: the model, the app's own view, or both (default). */
export type ToolAppVisibility = 'model' | 'app'

/** The app of a tool as the definition gives it: the view its calls render in. */
export interface ToolAppConfig extends Omit<ToolAppResource, 'html'> {
  /** `ui://...`: the resource's URI, served by `resources/read` and named by the tool's `_meta.ui.resourceUri`. */
  readonly uri: `ui://${string}`
  /** The view's HTML, or a function that reads it (called when a host asks, so a large view costs nothing until shown). */
  readonly html: string | (() => string | Promise<string>)
  readonly visibility?: readonly ToolAppVisibility[]
}

/**
 * An MCP App (SEP-1865): the HTML view a tool's calls render in. Defined with the tool
 * (`toolDefinition({ app })`) or imported with a server's tool (its `_meta.ui.resourceUri`).
 */
export interface ToolApp {
  readonly uri: `ui://${string}`
  readonly visibility: readonly ToolAppVisibility[]
  /** Reads the resource; an imported tool's reads it from its server. */
  read(): Promise<ToolAppResource>
}

const apps = new WeakMap<object, ToolApp>()

/**
 * A tool's app in the one shape the server reads, checked (a `ToolDefinitionError` names what is
 * wrong). `toolDefinition` keeps `app` as given and checks nothing, so the browser bundle, which
 * never reads a resource, pays nothing for it; the server's tool registry calls this at startup.
 */
export function toolApp(tool: { readonly name: string; readonly app?: ToolAppConfig | ToolApp | undefined }): ToolApp | undefined {
  const config = tool.app
  if (config === undefined) return undefined
  let app = apps.get(config)
  if (app === undefined) apps.set(config, (app = toToolApp(tool.name, config)))
  return app
}

function toToolApp(toolName: string, config: ToolAppConfig | ToolApp): ToolApp {
  const where = `\`app\` of tool "${toolName}"`
  if (typeof config !== 'object' || config === null) throw new ToolDefinitionError(`${where} must be an object`)
  if (typeof config.uri !== 'string' || !config.uri.startsWith('ui://')) throw new ToolDefinitionError(`${where} needs a \`uri\` starting with ui://`)
  const visibility = config.visibility ?? ['model', 'app']
  if (!Array.isArray(visibility) || visibility.length === 0 || visibility.some((who) => who !== 'model' && who !== 'app')) {
    throw new ToolDefinitionError(`${where}: \`visibility\` lists 'model' and/or 'app'`)
  }
  if ('read' in config && typeof config.read === 'function') return Object.freeze({ uri: config.uri, visibility, read: config.read })
  const { uri: _uri, html, visibility: _visibility, ...meta } = config as ToolAppConfig
  if (typeof html !== 'string' && typeof html !== 'function') throw new ToolDefinitionError(`${where} needs \`html\`: a string or a function that reads it`)
  return Object.freeze({
    uri: config.uri,
    visibility,
    read: async (): Promise<ToolAppResource> => ({ ...meta, html: typeof html === 'string' ? html : await html() }),
  })
}
