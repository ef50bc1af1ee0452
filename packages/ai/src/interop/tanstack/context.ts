import type { ToolContext } from '../../tools/types.ts'

/**
 * What TanStack AI hands a tool's `execute` (its `ToolExecutionContext`). Declared structurally so
 * `@tanstack/ai` stays an optional peer dependency.
 */
export interface TanStackToolContext {
  readonly toolCallId?: string | undefined
  readonly abortSignal?: AbortSignal | undefined
  readonly context?: unknown
  readonly emitCustomEvent?: ((eventName: string, value: Record<string, any>) => void) | undefined
}

/**
 * Maps TanStack's execution context to Toolgate's. TanStack may pass none at all (its standalone
 * `ToolCallManager` does without app context), so every field has a neutral fallback.
 * `emitCustomEvent` is not forwarded: handlers stay portable across runtimes.
 */
export function toToolContext(ctx: TanStackToolContext | undefined): ToolContext {
  return {
    toolCallId: ctx?.toolCallId ?? '',
    signal: ctx?.abortSignal ?? new AbortController().signal,
    context: ctx?.context,
  }
}
