import type { McpAppActivityEvent } from '../../protocol/events.ts'
import type { ThreadToolMessage } from '../../protocol/messages.ts'
import type { ToolRegistry } from '../../tools/toolRegistry.ts'
import { isRecord } from '../../util/isRecord.ts'

// The one run event of a call whose tool has an MCP App: AG-UI's `ACTIVITY_SNAPSHOT` for MCP Apps,
// told after the call's result. AG-UI clients read it as it is (CopilotKit renders the view with its
// own host and sends the view's requests back here, `serverId` naming the call); Toolgate's client
// takes the app's URI for the call from it; the other dialects tell nothing of it.

/** `serverHash` of every activity: CopilotKit hands it back with the view's requests. */
export const MCP_APP_SERVER = 'toolgate'

const urisOf = new WeakMap<ToolRegistry, ReadonlyMap<string, string> | undefined>()

/** The app URI of each tool that has one, by tool name; `undefined` when none has (the common case costs nothing per result). */
export function appUris(tools: ToolRegistry): ReadonlyMap<string, string> | undefined {
  if (urisOf.has(tools)) return urisOf.get(tools)
  const uris = new Map<string, string>()
  for (const name of tools.names) {
    const uri = tools.get(name)?.app?.uri
    if (uri) uris.set(name, uri)
  }
  const found = uris.size > 0 ? uris : undefined
  urisOf.set(tools, found)
  return found
}

/** The activity of `result`'s call, whose tool's app is `uri`; `args`: the call's arguments as JSON text, when the run saw them. */
export function mcpAppActivity(result: ThreadToolMessage, uri: string, args: string | undefined): McpAppActivityEvent {
  const { toolCallId, toolName, status, content, output } = result
  const toolInput = args === undefined ? undefined : parsed(args)
  return {
    type: 'ACTIVITY_SNAPSHOT',
    messageId: `mcp-app:${toolCallId}`,
    activityType: 'mcp-apps',
    replace: true,
    content: {
      toolCallId,
      toolName,
      resourceUri: uri,
      serverHash: MCP_APP_SERVER,
      serverId: toolCallId,
      result: {
        content: [{ type: 'text', text: content }],
        ...(status === 'success' && isRecord(output) ? { structuredContent: output } : {}),
        ...(status === 'success' ? {} : { isError: true }),
      },
      ...(toolInput ? { toolInput } : {}),
    },
  }
}

function parsed(args: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(args)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}
