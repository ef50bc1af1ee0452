import { ToolValidationError } from '../errors.ts'
import type { ToolSchema } from '../schema/types.ts'
import { isToolContentResult, withValidatedOutput } from './toolResult.ts'
import type { AnyTool } from './types.ts'

/** Validates a call's input; throws `ToolValidationError` listing every issue with its path. */
export function validateToolInput(tool: AnyTool, input: unknown): Promise<unknown> {
  return validateAgainst(tool.name, 'input', tool.inputSchema, input)
}

/**
 * Validates what a tool returned; throws `ToolValidationError` listing every issue with its path.
 * A `toolResult()` is checked by its `output` and keeps its content.
 */
export async function validateToolOutput(tool: AnyTool, output: unknown): Promise<unknown> {
  if (!isToolContentResult(output)) return validateAgainst(tool.name, 'output', tool.outputSchema, output)
  if (output.output === undefined && !tool.outputSchema) return output
  return withValidatedOutput(output, await validateAgainst(tool.name, 'output', tool.outputSchema, output.output))
}

async function validateAgainst(
  toolName: string,
  target: 'input' | 'output',
  schema: ToolSchema | undefined,
  value: unknown,
): Promise<unknown> {
  if (!schema) return value
  const result = await schema['~standard'].validate(value)
  if (result.issues) throw new ToolValidationError(toolName, target, result.issues)
  return result.value
}
