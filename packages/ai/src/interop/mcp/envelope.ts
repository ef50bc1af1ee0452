import { toProviderTool } from '../../providers/toProviderTool.ts'
import type { McpOptions, McpToolAnnotations } from '../../providers/targets.ts'
import type { McpTool } from '../../providers/types.ts'
import type { AnyTool } from '../../tools/types.ts'
import { isPlainObject } from '../../util/isPlainObject.ts'

/**
 * The options a tool is converted with for MCP, both ways: `toProviderTool` to list it and
 * `fromProviderArgs` to read its calls must agree.
 */
export function mcpOptions(tool: AnyTool): McpOptions | undefined {
  const annotations = mcpAnnotations(tool)
  return annotations ? { annotations } : undefined
}

/** The tool as `tools/list` publishes it: the exact MCP envelope, name mapped if MCP refuses it. */
export function mcpToolEnvelope(tool: AnyTool): McpTool {
  return toProviderTool(tool, 'mcp', mcpOptions(tool)).tool
}

/**
 * `metadata.annotations` as given, over hints derived from Toolgate's own `metadata.destructive`
 * flag; a `readOnly` tool is told as `readOnlyHint: true` whatever they say (it is what the tool
 * declared, and what this server acts on). `needsApproval` maps to no hint: annotations describe what a tool does, untrusted by
 * clients, while approval is enforced here, on the server (see `registerMcpTools`).
 */
function mcpAnnotations(tool: AnyTool): McpToolAnnotations | undefined {
  const { annotations, destructive } = tool.metadata as { annotations?: unknown; destructive?: unknown }
  const merged: McpToolAnnotations = {
    ...(typeof destructive === 'boolean' ? { destructiveHint: destructive } : {}),
    ...(isPlainObject(annotations) ? annotations : {}),
    ...(tool.readOnly === true ? { readOnlyHint: true } : {}),
  }
  return Object.keys(merged).length > 0 ? merged : undefined
}
