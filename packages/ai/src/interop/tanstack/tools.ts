import { InvalidOptionError } from '../../errors.ts'
import { toolJsonSchema } from '../../tools/toolJsonSchema.ts'
import type { NeedsApproval, ServerTool, ToolMetadata } from '../../tools/types.ts'
import type { StandardToolSchema } from '../standardTool.ts'
import { toToolContext, type TanStackToolContext } from './context.ts'
import { tanStackInputSchema, tanStackOutputSchema } from './schema.ts'

/**
 * A tool in the shape `chat()` of `@tanstack/ai` takes (its `Tool`), declared structurally so the
 * package stays an optional peer dependency.
 */
export interface TanStackTool<
  TName extends string = string,
  TInput = unknown,
  TResult = unknown,
  TMetadata extends ToolMetadata = ToolMetadata,
> {
  readonly name: TName
  readonly description: string
  readonly inputSchema: StandardToolSchema<TInput>
  readonly outputSchema?: StandardToolSchema<TResult> | undefined
  readonly needsApproval: boolean
  readonly metadata: TMetadata
  execute(input: TInput, context?: TanStackToolContext): Promise<TResult>
}

type AnyServerTool = ServerTool<string, any, any, any, any, any>

/** The TanStack tool made of a server tool, its types kept (per member of a union). */
export type TanStackToolOf<TTool> =
  TTool extends ServerTool<infer TName, any, any, any, infer TMetadata, infer TFormatted, infer TRawInput>
    ? TanStackTool<TName, TRawInput, TFormatted, TMetadata>
    : never

/**
 * Adapts a `.server()` tool for `chat({ tools })` of `@tanstack/ai`:
 * - validation runs once, in the tool's own `execute` (async validators and transforms included),
 *   after a synchronous early check that keeps bad input away from approvals;
 * - TanStack's `{ toolCallId, abortSignal, context }` becomes the handler's `{ toolCallId, signal, context }`;
 * - an approval policy (a function) becomes `needsApproval: true`: TanStack cannot evaluate it per
 *   call, so every call asks a human and the policy is never bypassed;
 * - `metadata` and the tool's JSON Schema (its `toJsonSchema` hook included) are passed on.
 * Throws `SchemaConversionError` at once if the tool's JSON Schema cannot be emitted.
 */
export function toTanStackTool<TTool extends AnyServerTool>(tool: TTool): TanStackToolOf<TTool> {
  if (tool?.kind !== 'server') {
    throw new InvalidOptionError('toTanStackTool', 'tool', 'must be a .server() tool; declare browser tools with the bare definition')
  }
  // What TanStack will ask for on the first request: fail at startup, not in the middle of a chat.
  toolJsonSchema(tool, { io: 'input', target: 'draft-07' })
  if (tool.outputSchema) toolJsonSchema(tool, { io: 'output', target: 'draft-07' })

  const adapted: TanStackTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: tanStackInputSchema(tool),
    outputSchema: tool.outputSchema ? tanStackOutputSchema(tool) : undefined,
    needsApproval: requiresApproval(tool.needsApproval),
    metadata: tool.metadata,
    execute: (input, context) => tool.execute(input, toToolContext(context)),
  }
  return Object.freeze(adapted) as TanStackToolOf<TTool>
}

/**
 * TanStack reads `needsApproval` as a flag before running a call, and no per-call hook of it can ask
 * a human (middleware `onBeforeToolCall` may only rewrite, skip or abort a call). A policy cannot be
 * evaluated there, so it always asks: a human decides every call and the policy is never bypassed.
 */
function requiresApproval(needsApproval: NeedsApproval): boolean {
  return typeof needsApproval === 'function' || needsApproval === true
}
