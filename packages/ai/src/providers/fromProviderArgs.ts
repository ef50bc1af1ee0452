import type { AnyTool } from '../tools/types.ts'
import { restore } from './plan.ts'
import type { ProviderOptions, ProviderTarget } from './targets.ts'
import { singleToolConversion } from './toProviderTool.ts'
import type { ProviderCall } from './types.ts'

/**
 * Maps the arguments a model produced under the converted schema back to the tool's own shape,
 * before validation: a wrapped root is unwrapped, renamed properties get their names back, a
 * `null` sent only because strict mode made an optional property required becomes absent,
 * stringified enum values, JSON-encoded values, entry lists and tuple objects turn back into
 * what they were. `toolName` is the tool's own name (route a provider's function name to the
 * tool with `fromProviderName`). Pass the options given to `toProviderTool`: strict mode changes
 * the mapping. `args` may be the JSON string OpenAI sends. Uses the cached conversion.
 */
export function fromProviderArgs<TTool extends AnyTool, T extends ProviderTarget>(
  tool: TTool,
  target: T,
  args: unknown,
  options?: ProviderOptions<T>,
): ProviderCall<TTool['name']> {
  const { plan, defs } = singleToolConversion(tool, target, options)
  return { toolName: tool.name, args: restore(plan, parseArguments(args), defs) }
}

/** OpenAI sends arguments as a JSON string, Gemini may leave them out for a tool without parameters. */
function parseArguments(args: unknown): unknown {
  if (args === undefined || args === null || args === '') return {}
  if (typeof args !== 'string') return args
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}
