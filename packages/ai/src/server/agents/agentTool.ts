import { InvalidOptionError, ToolgateError } from '../../errors.ts'
import type { ChatModel } from '../../model/chatModel.ts'
import type { InferSchemaOutput, SchemaSource } from '../../schema/types.ts'
import { toolDefinition } from '../../tools/toolDefinition.ts'
import { createToolRegistry } from '../../tools/toolRegistry.ts'
import type { AnyTool, NeedsApproval, ServerTool, ToolMetadata } from '../../tools/types.ts'
import { registerAgent } from './agentSpec.ts'

/** The input an agent tool takes when it names no `inputSchema`: the task, in words. */
const TASK_SCHEMA = {
  type: 'object',
  properties: { task: { type: 'string', description: 'What the agent should do, in full: it sees nothing else of the conversation.' } },
  required: ['task'],
  additionalProperties: false,
} as const

export interface AgentToolOptions<TName extends string = string, TInputSchema extends SchemaSource | undefined = undefined> {
  /** What the calling model calls the agent by (a tool name). */
  readonly name: TName
  /** What the agent does, for the calling model (and for `SUBAGENT_STARTED`). */
  readonly description: string
  /** The agent's own model. */
  readonly model: ChatModel
  /** The agent's own tools: server tools (agent tools too), browser tools, with their approval policies. */
  readonly tools?: readonly AnyTool[]
  /** Put before the task in the agent's first message. */
  readonly instructions?: string
  /** What the calling model sends; default `{ task: string }`. The agent's first message is the input as JSON (the task's text, by default). */
  readonly inputSchema?: TInputSchema
  /** Model calls per invocation (default 10): one that reaches it without an answer fails the call (`AGENT_STEP_LIMIT`). */
  readonly maxSteps?: number
  /** Approval of the delegation itself: the interrupt then lists what the agent may call (`delegation`). */
  readonly needsApproval?: NeedsApproval<[TInputSchema] extends [undefined] ? { task: string } : InferSchemaOutput<TInputSchema>>
  readonly metadata?: ToolMetadata
}

/**
 * A Toolgate agent (its own model, tools and limits) as a server tool of a chat handler or of
 * another agent. A call runs the agent's model loop on the server: its steps stream as subagent
 * activity (`SUBAGENT_STARTED`, its events with `subagentRunId`, `SUBAGENT_FINISHED`), its tools'
 * approvals pause the whole run with interrupts carrying the inner call and its `path`, and its
 * last text is the call's result.
 */
export function agentTool<const TName extends string, TInputSchema extends SchemaSource | undefined = undefined>(
  options: AgentToolOptions<TName, TInputSchema>,
): ServerTool<TName, [TInputSchema] extends [undefined] ? { task: string } : InferSchemaOutput<TInputSchema>, string> {
  const where = `agentTool("${String(options?.name)}")`
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError('agentTool()', 'options', 'must be an object')
  const { name, description, model, tools = [], instructions, inputSchema, maxSteps = 10, needsApproval = false, metadata } = options
  if (typeof model?.stream !== 'function') throw new InvalidOptionError(where, 'model', 'must be a ChatModel (an object with `stream`)')
  if (!Array.isArray(tools)) throw new InvalidOptionError(where, 'tools', 'must be an array of tools')
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new InvalidOptionError(where, 'maxSteps', 'must be a positive integer')
  if (instructions !== undefined && typeof instructions !== 'string') throw new InvalidOptionError(where, 'instructions', 'must be a string')
  const registry = createToolRegistry(tools, where)
  const tool = toolDefinition({
    name,
    description,
    inputSchema: (inputSchema ?? TASK_SCHEMA) as SchemaSource,
    // A policy or a boolean, as `toolDefinition` takes either (its overloads type them apart).
    needsApproval: needsApproval as boolean,
    ...(metadata === undefined ? {} : { metadata }),
  }).server((): string => {
    // Its work is the chat handler's run (events, approvals, storage): outside one there is none.
    throw new ToolgateError('AGENT_OUTSIDE_RUN', `Agent tool "${name}" runs only inside a chat handler's run`)
  })
  registerAgent(tool, { name, description, model, tools: registry, instructions, maxSteps })
  return tool as never
}
