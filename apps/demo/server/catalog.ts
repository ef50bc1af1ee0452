import { toolJsonSchema, type AnyTool } from '@toolgate/ai'

/** What /api/tools lists: each tool and the JSON Schema it declares to models. */
export function toJsonSchemaCatalog(tools: readonly AnyTool[]) {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    runsOn: tool.kind === 'server' ? 'server' : 'browser',
    needsApproval: typeof tool.needsApproval === 'function' ? 'policy' : tool.needsApproval,
    metadata: tool.metadata,
    inputSchema: toolJsonSchema(tool),
  }))
}
