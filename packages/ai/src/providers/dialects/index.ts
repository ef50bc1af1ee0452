import type { Dialect } from '../dialect.ts'
import type { ProviderTarget, ResolvedOptions } from '../targets.ts'
import { ANTHROPIC_NAME, anthropicDialect, anthropicTool } from './anthropic.ts'
import type { EnvelopeParts } from './envelope.ts'
import { GEMINI_NAME, geminiDialect, geminiJsonSchemaDialect, geminiJsonSchemaTool, geminiTool } from './gemini.ts'
import { MCP_NAME, mcpDialect, mcpTool } from './mcp.ts'
import { OPENAI_NAME, openAiChatTool, openAiDialect, openAiResponsesTool } from './openai.ts'

/** Everything one target needs: its schema dialect, its tool envelope and its tool-name rule. */
export interface TargetSpec {
  readonly dialect: (options: ResolvedOptions) => Dialect
  readonly envelope: (parts: EnvelopeParts) => object
  readonly name: RegExp
  readonly maxNameLength: number
}

export const TARGET_SPECS: Readonly<Record<ProviderTarget, TargetSpec>> = {
  'openai-chat': { dialect: (o) => openAiDialect('openai-chat', o.strict), envelope: openAiChatTool, name: OPENAI_NAME, maxNameLength: 64 },
  'openai-responses': { dialect: (o) => openAiDialect('openai-responses', o.strict), envelope: openAiResponsesTool, name: OPENAI_NAME, maxNameLength: 64 },
  anthropic: { dialect: (o) => anthropicDialect(o.strict), envelope: anthropicTool, name: ANTHROPIC_NAME, maxNameLength: 64 },
  gemini: { dialect: (o) => geminiDialect(o.recursionDepth), envelope: geminiTool, name: GEMINI_NAME, maxNameLength: 128 },
  'gemini-json-schema': { dialect: () => geminiJsonSchemaDialect(), envelope: geminiJsonSchemaTool, name: GEMINI_NAME, maxNameLength: 128 },
  mcp: { dialect: () => mcpDialect(), envelope: mcpTool, name: MCP_NAME, maxNameLength: 128 },
}

export function dialectFor(target: ProviderTarget, options: ResolvedOptions): Dialect {
  return TARGET_SPECS[target].dialect(options)
}
