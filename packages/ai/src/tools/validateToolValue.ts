import { ToolValidationError } from '../errors.ts'
import type { ToolSchema } from '../schema/types.ts'
import { isPromiseLike } from '../util/isPromiseLike.ts'
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

// The browser validates with the two above (async, as written: the client bundle pays no byte for
// the server's way below, which it never imports).
async function validateAgainst(
  toolName: string,
  target: 'input' | 'output',
  schema: ToolSchema | undefined,
  value: unknown,
): Promise<unknown> {
  if (!schema) return value
  return valueOf(toolName, target, await schema['~standard'].validate(value))
}

/** A value validated now (`value`), or by an asynchronous schema (`later`). */
export type Validation = { readonly value: unknown; readonly later?: undefined } | { readonly later: Promise<unknown> }

/**
 * `validateToolInput` as the schema answers it: the valid value now from a synchronous schema (a
 * Standard Schema's `validate` may return its result or a promise of it: the one place that is
 * asked), `later` only from an asynchronous one. A synchronous schema's issues are thrown here.
 * The server's turn validates every call's input and output: most schemas (Valibot, Zod) answer
 * at once, and an await each would cost the turn an async function and its promises.
 */
export function toolInputNow(tool: AnyTool, input: unknown): Validation {
  return validateNow(tool.name, 'input', tool.inputSchema, input)
}

/** `validateToolOutput` as the schema answers it (see `toolInputNow`). */
export function toolOutputNow(tool: AnyTool, output: unknown): Validation {
  if (!isToolContentResult(output)) return validateNow(tool.name, 'output', tool.outputSchema, output)
  if (output.output === undefined && !tool.outputSchema) return { value: output }
  const checked = validateNow(tool.name, 'output', tool.outputSchema, output.output)
  return checked.later ? { later: checked.later.then((value) => withValidatedOutput(output, value)) } : { value: withValidatedOutput(output, checked.value) }
}

function validateNow(toolName: string, target: 'input' | 'output', schema: ToolSchema | undefined, value: unknown): Validation {
  if (!schema) return { value }
  const result = schema['~standard'].validate(value)
  return isPromiseLike(result) ? { later: Promise.resolve(result).then((settled) => valueOf(toolName, target, settled)) } : { value: valueOf(toolName, target, result) }
}

function valueOf(toolName: string, target: 'input' | 'output', result: Awaited<ReturnType<ToolSchema['~standard']['validate']>>): unknown {
  if (result.issues) throw new ToolValidationError(toolName, target, result.issues)
  return result.value
}
