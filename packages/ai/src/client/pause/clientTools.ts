import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { ResumeAnswer } from '../../protocol/requests.ts'
import { internalsOf } from '../../tools/internals.ts'
import type { AnyTool, ToolContext } from '../../tools/types.ts'
import { validateToolInput, validateToolOutput } from '../../tools/validateToolValue.ts'
import { untilAborted } from '../../util/untilAborted.ts'

/** What a client tool came to: an output for the server, or the error text the model will read. */
export type ClientToolResult = { readonly output: unknown } | { readonly error: string }

/**
 * Runs a `client_tool` interrupt with the tool's own `execute`: input validated before, output
 * validated after, and every failure returned as an error rather than thrown. A tool this browser
 * does not implement fails at once, so the run never waits for an answer that cannot come.
 * Rejects only when `signal` aborts (a stop), even if `execute` ignores the signal.
 */
export async function runClientTool(
  tool: AnyTool | undefined,
  interrupt: ToolInterrupt,
  signal: AbortSignal,
): Promise<ClientToolResult> {
  const handler = tool?.kind === 'client' ? internalsOf(tool)?.handler : undefined
  if (!tool || !handler) return { error: `Tool "${interrupt.toolName}" is not implemented in this browser` }
  const run = async (): Promise<ClientToolResult> => {
    const input = await validateToolInput(tool, interrupt.input)
    const context: ToolContext<undefined> = { toolCallId: interrupt.toolCallId, signal, context: undefined }
    const output = await validateToolOutput(tool, await handler(input, context))
    // `undefined` is no JSON value; the server needs one.
    return { output: output === undefined ? null : output }
  }
  return untilAborted(run().catch(toErrorResult), signal)
}

function toErrorResult(error: unknown): ClientToolResult {
  return { error: error instanceof Error ? error.message : String(error) }
}

/** The client tools running in this browser, by interrupt id. */
export class ClientToolRuns {
  /** The client's tools: those made with `.client()` run here. */
  readonly #tools: readonly AnyTool[]
  readonly #running = new Map<string, AbortController>()

  constructor(tools: readonly AnyTool[]) {
    this.#tools = tools
  }

  get size(): number {
    return this.#running.size
  }

  /** Runs the tool `interrupt` names; `done` gets the answer unless the run is halted first. Never rejects. */
  start(interrupt: ToolInterrupt, done: (answer: ResumeAnswer) => void): Promise<void> {
    const tool = this.#tools.find((candidate) => candidate.name === interrupt.toolName)
    const controller = new AbortController()
    this.#running.set(interrupt.id, controller)
    return runClientTool(tool, interrupt, controller.signal)
      .then((result) => {
        this.#running.delete(interrupt.id)
        done({ interruptId: interrupt.id, ...result })
      })
      .catch(() => {}) // rejects only when halted, which already marked the call
  }

  /** Aborts every running tool through its signal; returns the interrupts it halted, whose answers nobody sends. */
  halt(): ReadonlyMap<string, unknown> {
    const halted = new Map(this.#running)
    for (const controller of halted.values()) controller.abort()
    this.#running.clear()
    return halted
  }
}
