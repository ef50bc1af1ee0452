import { InvalidOptionError } from '../errors.ts'
import { toolDefinition } from './toolDefinition.ts'
import type { ServerTool } from './types.ts'

/** The description Anthropic recommends for the "think" tool (anthropic.com/engineering/claude-think-tool). */
export const THINK_TOOL_DESCRIPTION =
  'Use the tool to think about something. It will not obtain new information or change anything, ' +
  'but just append the thought to the log. Use it when complex reasoning or some cache memory is needed, ' +
  'for example to check the results of earlier tool calls against the rules before acting on them.'

/** What marks a think tool's calls, so a UI can show them as thoughts rather than as tool cards. */
export const THOUGHT_METADATA = /* @__PURE__ */ Object.freeze({ display: 'thought' as const })

export interface ThinkToolOptions<TName extends string> {
  /** Default `think`. */
  readonly name?: TName
  /** Default: the description Anthropic recommends. Name your domain's rules here if the model should check them. */
  readonly description?: string
}

export type ThinkTool<TName extends string = 'think'> = ServerTool<
  TName,
  { thought: string },
  Record<string, never>,
  false,
  typeof THOUGHT_METADATA
>

/**
 * The no-op "think" tool: the model writes a thought between tool calls and gets an empty result.
 * Nothing runs and nothing changes; the thought stays in the thread for the model (and the user)
 * to read. Its calls carry `metadata.display === 'thought'`.
 */
export function thinkTool<const TName extends string = 'think'>(options: ThinkToolOptions<TName> = {}): ThinkTool<TName> {
  const { name = 'think' as TName, description = THINK_TOOL_DESCRIPTION } = options
  if (typeof description !== 'string' || description.trim() === '') throw new InvalidOptionError('thinkTool', 'description', 'must be a non-empty string')
  return toolDefinition({
    name,
    description,
    title: 'Thinking',
    // Plain JSON Schema: the core needs no schema library for its own tools.
    inputSchema: {
      type: 'object',
      properties: { thought: { type: 'string', description: 'A thought to think about.' } },
      required: ['thought'],
      additionalProperties: false,
    },
    metadata: THOUGHT_METADATA,
  }).server(() => ({})) as unknown as ThinkTool<TName>
}
