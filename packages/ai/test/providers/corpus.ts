import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ProviderOptions, ProviderTarget } from '@toolgate/ai/providers'

/** GitHub's MCP server tool schemas, copied into the repository (see ../fixtures/CORPUS.md). */
export const CORPUS_DIR = fileURLToPath(new URL('../fixtures/github-mcp-server/', import.meta.url))

export interface CorpusTool {
  readonly file: string
  readonly name: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly annotations?: Record<string, unknown>
}

export function loadCorpus(): CorpusTool[] {
  return readdirSync(CORPUS_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(CORPUS_DIR + file, 'utf8')) }))
}

export interface Variant {
  readonly label: string
  readonly target: ProviderTarget
  readonly options: ProviderOptions
}

/** Every target, with strict variants where the target has a strict mode. */
export const VARIANTS: readonly Variant[] = [
  { label: 'openai-chat', target: 'openai-chat', options: {} },
  { label: 'openai-chat strict', target: 'openai-chat', options: { strict: true } },
  { label: 'openai-responses', target: 'openai-responses', options: {} },
  { label: 'openai-responses strict', target: 'openai-responses', options: { strict: true } },
  { label: 'anthropic', target: 'anthropic', options: {} },
  { label: 'anthropic strict', target: 'anthropic', options: { strict: true } },
  { label: 'gemini', target: 'gemini', options: {} },
  { label: 'gemini-json-schema', target: 'gemini-json-schema', options: {} },
  { label: 'mcp', target: 'mcp', options: {} },
]
