import { InvalidOptionError, ToolDeniedError, ToolExecutionError, ToolInputError, ToolNotFoundError, ToolValidationError } from '../errors.ts'
import { formatIssuePath } from '../schema/formatIssues.ts'
import { toProviderTool } from '../providers/toProviderTool.ts'
import type { ProviderOptions, ProviderTarget } from '../providers/targets.ts'
import type { ProviderToolMap } from '../providers/types.ts'
import { denialText, evaluateApproval, rejectMessageOf } from './approval.ts'
import type { AnyTool, InferToolName } from './types.ts'
import { validateToolInput, validateToolOutput } from './validateToolValue.ts'
import { isRecord } from '../util/isRecord.ts'
import { parseToolArguments } from '../util/parseToolArguments.ts'
import { randomId } from '../util/randomId.ts'
import { createToolRegistry } from './toolRegistry.ts'

// Tools by name, for code that runs them outside a chat: an agent loop of your own, a job queue,
// an MCP server. The same checks as the chat runtime: arguments parsed and validated, approval
// asked, output validated; each failure is a typed error whose message a model can read.

/** What an approval handler is asked. */
export interface ToolSetApprovalRequest {
  readonly toolName: string
  readonly toolCallId: string
  /** The validated input. */
  readonly input: unknown
  /** The policy's reason, if it gave one. */
  readonly reason: string | undefined
  readonly context: unknown
}

/** `true` runs the call; `false` or `{ approved: false, reason }` denies it. */
export type ToolSetApprove = (
  request: ToolSetApprovalRequest,
) => boolean | { readonly approved: boolean; readonly reason?: string } | Promise<boolean | { readonly approved: boolean; readonly reason?: string }>

export interface ToolSetOptions {
  /** Asked before a call that needs approval runs. Without it, a set refuses tools that may need approval. */
  readonly approve?: ToolSetApprove
  /** `ctx.context` for every call (checked against each tool's `contextSchema` when called). */
  readonly context?: unknown
}

export interface ToolCallOptions {
  readonly signal?: AbortSignal
  /** Default: a fresh id. */
  readonly toolCallId?: string
  /** Overrides the set's `context` for this call. */
  readonly context?: unknown
}

export interface ToolSet<TTools extends readonly AnyTool[] = readonly AnyTool[]> {
  readonly tools: TTools
  readonly names: readonly InferToolName<TTools[number]>[]
  /**
   * Calls a tool by name with the model's arguments (a JSON string or a parsed value) and returns
   * the output as JSON text. Throws `ToolNotFoundError`, `ToolInputError` (bad JSON or schema,
   * with `issues`), `ToolDeniedError` or `ToolExecutionError` (`cause` holds the tool's error).
   */
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<string>
  /** Like `call`, but returns the validated output itself. */
  callRaw(name: string, args: unknown, options?: ToolCallOptions): Promise<unknown>
  /** Every tool in one provider's envelope (`toProviderTool`), in the set's order. */
  definitions<T extends ProviderTarget>(target: T, options?: ProviderOptions<T>): ProviderToolMap[T][]
}

const WHERE = 'toolSet'

/** A set of `.server()` tools callable by name. */
export function toolSet<const TTools extends readonly AnyTool[]>(tools: TTools, options: ToolSetOptions = {}): ToolSet<TTools> {
  if (!Array.isArray(tools)) throw new InvalidOptionError(WHERE, 'tools', 'must be an array of tools')
  if (!isRecord(options as unknown)) throw new InvalidOptionError(WHERE, 'options', 'must be an object')
  const { approve } = options
  if (approve !== undefined && typeof approve !== 'function') throw new InvalidOptionError(WHERE, 'approve', 'must be a function')
  const registry = createToolRegistry(tools, WHERE)
  for (const [index, tool] of tools.entries()) {
    if (tool.kind !== 'server') throw new InvalidOptionError(WHERE, `tools[${index}]`, `is tool "${tool.name}" without a server execute: bind it with .server()`)
    if (tool.needsApproval !== false && !approve) {
      throw new InvalidOptionError(WHERE, 'approve', `is needed: tool "${tool.name}" may ask for approval`)
    }
  }

  const callRaw = async (name: string, args: unknown, call: ToolCallOptions = {}): Promise<unknown> => {
    const entry = registry.get(name)
    if (!entry) throw new ToolNotFoundError(name, registry.names)
    const { tool, handler } = entry
    const toolCallId = call.toolCallId ?? randomId('call_')
    const context = await toolContext(tool, 'context' in call ? call.context : options.context)
    const { raw, input } = await validInput(tool, args)

    const approval = await evaluateApproval(tool, input, { toolCallId, context })
    if (approval.required) {
      const answer = await approve!({ toolName: name, toolCallId, input, reason: approval.reason, context })
      const approved = typeof answer === 'boolean' ? answer : answer?.approved === true
      if (!approved) {
        const reason = typeof answer === 'object' && typeof answer.reason === 'string' && answer.reason.trim() ? answer.reason.trim() : undefined
        const text = rejectMessageOf(tool, { toolCallId, toolName: name, input: raw })
        throw new ToolDeniedError(name, denialText(reason, text), reason)
      }
    }

    let output: unknown
    try {
      output = await handler!(input, { toolCallId, signal: call.signal ?? new AbortController().signal, context })
    } catch (error) {
      throw new ToolExecutionError(name, `Tool "${name}" failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    }
    try {
      return await validateToolOutput(tool, output)
    } catch (error) {
      throw new ToolExecutionError(name, (error as Error).message, { cause: error })
    }
  }

  return {
    tools,
    names: registry.names as never,
    callRaw,
    call: async (name, args, call) => {
      const output = await callRaw(name, args, call)
      try {
        return JSON.stringify(output) ?? 'null'
      } catch (error) {
        throw new ToolExecutionError(name, `Tool "${name}" returned a value that is not JSON (${(error as Error).message})`, { cause: error })
      }
    },
    definitions: (target, providerOptions) => tools.map((tool) => toProviderTool(tool, target, providerOptions).tool),
  }
}

async function validInput(tool: AnyTool, args: unknown): Promise<{ raw: unknown; input: unknown }> {
  let value = args
  if (typeof args === 'string') {
    const parsed = parseToolArguments(args)
    if (!parsed.ok) throw new ToolInputError(tool.name, `The arguments of tool "${tool.name}" are not valid JSON (${parsed.error}); send one JSON object.`)
    value = parsed.value
  }
  try {
    return { raw: value, input: await validateToolInput(tool, value) }
  } catch (error) {
    if (error instanceof ToolValidationError) throw new ToolInputError(tool.name, error.message, error.issues, { cause: error })
    throw new ToolInputError(tool.name, `The input of tool "${tool.name}" could not be validated: ${(error as Error).message}`, [], { cause: error })
  }
}

/** The context the tool sees: its `contextSchema`'s output, else the value as given. */
async function toolContext(tool: AnyTool, context: unknown): Promise<unknown> {
  const schema = tool.contextSchema
  if (!schema) return context
  const result = await schema['~standard'].validate(context)
  if (!result.issues) return result.value
  const keys = result.issues.map((issue) => formatIssuePath(issue.path))
  throw new InvalidOptionError(WHERE, 'context', `does not satisfy the contextSchema of tool "${tool.name}" at ${[...new Set(keys)].join(', ')}`)
}
