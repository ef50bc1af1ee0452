import type { ToolExecutionOptions } from 'ai'
import type { ToolContext } from '../../tools/types.ts'

/**
 * Maps the AI SDK's execute options to Toolgate's context: `abortSignal` becomes `signal` (a
 * never-aborted one when the SDK gives none) and `experimental_context`, the app's own data,
 * becomes `context`. `messages` is not passed on: handlers stay portable across runtimes.
 */
export function aiSdkToolContext(options: ToolExecutionOptions | undefined): ToolContext {
  return {
    toolCallId: options?.toolCallId ?? '',
    signal: options?.abortSignal ?? new AbortController().signal,
    context: options?.experimental_context,
  }
}
