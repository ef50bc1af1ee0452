import { ToolValidationError } from '../errors.ts'
import type { ThreadToolMessage } from '../protocol/messages.ts'
import { validateToolOutput } from '../tools/validateToolValue.ts'
import type { ToolEntry } from './toolset.ts'
import { errorResult, successResult, type CallRef } from './toolResults.ts'

/** A server tool call ready to run: its input is already validated. */
export interface Execution extends CallRef {
  readonly entry: ToolEntry
  readonly input: unknown
  /** The arguments the user approved instead of the model's, if any. */
  readonly editedArgs?: unknown
}

export interface ExecuteOptions {
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal
  readonly context: unknown
  readonly timeoutMs: number
  /** Called as each call finishes, so results stream in completion order. */
  readonly onResult?: (result: ThreadToolMessage) => void
}

/** Runs calls in parallel; never throws. Results come back in the order of `executions`. */
export function executeToolCalls(executions: readonly Execution[], options: ExecuteOptions): Promise<ThreadToolMessage[]> {
  return Promise.all(
    executions.map(async (execution) => {
      const result = await executeOne(execution, options)
      options.onResult?.(result)
      return result
    }),
  )
}

class Timeout extends Error {}

async function executeOne(execution: Execution, options: ExecuteOptions): Promise<ThreadToolMessage> {
  const { entry, input, toolCallId, toolName } = execution
  // The run already stopped (the client left right after approving, say): the tool must not start.
  if (options.signal.aborted) return notRun(execution)
  const timeout = new AbortController()
  const signal = AbortSignal.any([options.signal, timeout.signal])
  const timer = setTimeout(() => timeout.abort(new Timeout()), options.timeoutMs)
  let onAbort: (() => void) | undefined
  // A tool that ignores its signal must not hold the run: stop waiting for it when the signal fires.
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    if (signal.aborted) onAbort()
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  let started = false
  try {
    const run = Promise.resolve().then(() => {
      if (signal.aborted) throw signal.reason
      started = true
      return entry.handler!(input, { toolCallId, signal, context: options.context })
    })
    const output = await Promise.race([run, stopped])
    return successResult(execution, await validateToolOutput(entry.tool, output), execution.editedArgs)
  } catch (error) {
    if (!started) return notRun(execution)
    // The tool started and was cut off: it may have done its work (sent the mail, moved the money) anyway.
    if (timeout.signal.aborted) {
      return errorResult(execution, `Tool "${toolName}" timed out after ${options.timeoutMs} ms; it may still have taken effect`)
    }
    if (options.signal.aborted) {
      return errorResult(execution, `Tool "${toolName}" was aborted: the run stopped before it finished; it may still have taken effect`)
    }
    if (error instanceof ToolValidationError) return errorResult(execution, error.message)
    return errorResult(execution, `Tool "${toolName}" failed: ${error instanceof Error ? error.message : String(error)}`)
  } finally {
    clearTimeout(timer)
    if (onAbort) signal.removeEventListener('abort', onAbort)
  }
}

function notRun(call: CallRef): ThreadToolMessage {
  return errorResult(call, `Tool "${call.toolName}" did not run: the run stopped before it started`)
}
