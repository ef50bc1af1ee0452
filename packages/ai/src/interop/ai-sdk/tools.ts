import { InvalidOptionError } from '../../errors.ts'
import type { Tool } from 'ai'
import type { AnyTool, InferToolInput, InferToolOutput, ServerTool } from '../../tools/types.ts'
import { aiSdkNeedsApproval } from './approval.ts'
import { aiSdkToolContext } from './context.ts'
import { aiSdkInputSchema, aiSdkOutputSchema } from './schema.ts'

/**
 * The AI SDK tool made of a Toolgate tool, its types kept. The input is what the model sends
 * (before defaults and transforms, where the tool's types tell it apart): the SDK stores that and
 * hands it to `execute`, which validates it. The output is what `execute` resolves (formatting
 * included) for a server tool; for a definition or client tool, the output the app reports.
 */
export type AISdkToolOf<TTool> = Tool<AISdkInput<TTool>, AISdkOutput<TTool>>

type AISdkInput<TTool> = TTool extends { readonly '~types'?: { readonly rawInput: infer TRaw } | undefined }
  ? TRaw
  : InferToolInput<TTool>

type AISdkOutput<TTool> = TTool extends { readonly kind: 'server'; execute(...args: never[]): Promise<infer TFormatted> }
  ? TFormatted
  : InferToolOutput<TTool>

/** The AI SDK `ToolSet` made of tools, keyed by their names. */
export type AISdkToolsOf<TTools extends readonly AnyTool[]> = {
  [TTool in TTools[number] as TTool['name']]: AISdkToolOf<TTool>
}

/**
 * Adapts a tool for the Vercel AI SDK v6 (`generateText({ tools })`, `streamText`, ...):
 * - the model is sent the tool's own JSON Schema (draft-07), exactly; the SDK validates the
 *   model's input with the tool's schema, and a violation becomes a `tool-error` whose text lists
 *   `path: message` lines;
 * - a `.server()` tool gets `execute`: validate → run → validate, formatting included, with the
 *   SDK's `{ toolCallId, abortSignal, experimental_context }` as `{ toolCallId, signal, context }`.
 *   A definition or `.client()` tool has none: the SDK returns its calls to the app;
 * - `needsApproval: true` stays `true`; a policy runs per call on the validated input;
 * - `title` and (non-empty) `metadata` are passed on; `metadata` must then be JSON data.
 * Throws `SchemaConversionError` at once if the tool's JSON Schema cannot be emitted.
 */
export function toAISdkTool<TTool extends AnyTool>(tool: TTool): AISdkToolOf<TTool> {
  if (!tool || typeof tool.name !== 'string') throw new InvalidOptionError('toAISdkTool', 'tool', 'must be a tool made by toolDefinition()')
  const adapted = {
    description: tool.description,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    inputSchema: aiSdkInputSchema(tool),
    ...(tool.outputSchema ? { outputSchema: aiSdkOutputSchema(tool) } : {}),
    ...(tool.needsApproval === false ? {} : { needsApproval: aiSdkNeedsApproval(tool) }),
    ...(Object.keys(tool.metadata).length > 0 ? { metadata: tool.metadata as Tool['metadata'] } : {}),
    ...(isServerTool(tool) ? { execute: executeOf(tool) } : {}),
  }
  return Object.freeze(adapted) as unknown as AISdkToolOf<TTool>
}

/** `toAISdkTool` for each tool, keyed by name. Throws when two tools share a name. */
export function toAISdkTools<const TTools extends readonly AnyTool[]>(tools: TTools): AISdkToolsOf<TTools> {
  const set: Record<string, unknown> = {}
  for (const tool of tools) {
    if (Object.hasOwn(set, tool.name)) throw new InvalidOptionError('toAISdkTools', 'tools', `has two tools named "${tool.name}"`)
    set[tool.name] = toAISdkTool(tool)
  }
  return set as AISdkToolsOf<TTools>
}

function isServerTool(tool: AnyTool): tool is ServerTool<string, unknown, unknown, any, any, unknown> {
  return tool.kind === 'server'
}

function executeOf(tool: ServerTool<string, unknown, unknown, any, any, unknown>) {
  return (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]) => tool.execute(input, aiSdkToolContext(options))
}
