import { PASS_THROUGH, type Dialect } from '../dialect.ts'
import type { EnvelopeParts } from './envelope.ts'

/** docs/provider-rules.md MCP-N. */
export const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/

export function mcpDialect(): Dialect {
  return { ...PASS_THROUGH, target: 'mcp', label: 'MCP' }
}

export function mcpTool(parts: EnvelopeParts) {
  return {
    name: parts.name,
    ...(parts.title === undefined ? {} : { title: parts.title }),
    description: parts.description,
    inputSchema: parts.parameters,
    ...(parts.outputSchema === undefined ? {} : { outputSchema: parts.outputSchema }),
    ...(parts.annotations === undefined ? {} : { annotations: parts.annotations }),
  }
}
