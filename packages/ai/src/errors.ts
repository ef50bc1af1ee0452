import type { StandardSchemaV1 } from '@standard-schema/spec'
import { formatIssues } from './schema/formatIssues.ts'

/** Base class of every error Toolgate throws on purpose; `code` is stable across versions. */
export class ToolgateError extends Error {
  readonly code: string

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
    this.code = code
  }
}

/**
 * An option given to a constructor or factory (`createChatHandler`, `createChatClient`, `.server()`,
 * `scriptedModel`, a store) is unusable. Thrown when it is called, so a misconfiguration fails at
 * startup, never as an error on every request. `option` is the option's path, e.g. `limits.maxBodyBytes`.
 */
export class InvalidOptionError extends ToolgateError {
  readonly option: string

  constructor(where: string, option: string, problem: string, options?: ErrorOptions) {
    super('INVALID_OPTION', `${where}: \`${option}\` ${problem}`, options)
    this.option = option
  }
}

/**
 * A failure a tool reports on purpose, with a message written for the model (and the user who
 * sees the call): `throw new ToolError('No flights on that date; try another day')`. The runtime
 * passes its message through. Any other exception a tool throws may carry secrets (a connection
 * string, a path), so the model and the browser only learn that the tool failed, and the full
 * error goes to the server's `onError`.
 */
export class ToolError extends ToolgateError {
  constructor(message: string, options?: ErrorOptions) {
    super('TOOL_ERROR', message, options)
  }
}

/** Also recognises a `ToolError` from a second copy of the package, where `instanceof` fails. */
export function isToolError(error: unknown): error is ToolError {
  return error instanceof ToolError || (error instanceof Error && error.name === 'ToolError' && (error as { code?: unknown }).code === 'TOOL_ERROR')
}

/** A tool definition itself is unusable (empty name, missing description, ...). */
export class ToolDefinitionError extends ToolgateError {
  constructor(message: string) {
    super('TOOL_DEFINITION', message)
  }
}

/**
 * Input or output failed the tool's schema. The message lists every issue as `path: message`
 * so it can be handed to a model as-is and the model can correct its call.
 */
export class ToolValidationError extends ToolgateError {
  readonly target: 'input' | 'output'
  readonly toolName: string
  readonly issues: readonly StandardSchemaV1.Issue[]

  constructor(toolName: string, target: 'input' | 'output', issues: readonly StandardSchemaV1.Issue[]) {
    super(
      target === 'input' ? 'TOOL_INPUT_INVALID' : 'TOOL_OUTPUT_INVALID',
      `Invalid ${target} for tool "${toolName}":\n${formatIssues(issues)}`,
    )
    this.target = target
    this.toolName = toolName
    this.issues = issues
  }
}

/**
 * No JSON Schema could be produced for one side of a tool. The message ends with the way out: the
 * tool's `toJsonSchema` hook, which says the JSON Schema itself.
 */
export class SchemaConversionError extends ToolgateError {
  readonly toolName: string
  readonly io: 'input' | 'output'

  constructor(toolName: string, io: 'input' | 'output', reason: string, options?: ErrorOptions) {
    super('SCHEMA_CONVERSION', `Cannot emit JSON Schema for the ${io} of tool "${toolName}": ${reason}`, options)
    this.toolName = toolName
    this.io = io
  }
}

// What `ToolSet.call` throws: one class per way a call by name can fail, each with a stable code.

/** No tool by that name. `available` lists the names there are. */
export class ToolNotFoundError extends ToolgateError {
  readonly toolName: string
  readonly available: readonly string[]

  constructor(toolName: string, available: readonly string[]) {
    super('TOOL_NOT_FOUND', `Unknown tool "${toolName}". Available tools: ${available.join(', ') || '(none)'}.`)
    this.toolName = toolName
    this.available = available
  }
}

/** The arguments are not JSON, or fail the tool's input schema (`issues` with their paths). */
export class ToolInputError extends ToolgateError {
  readonly toolName: string
  readonly issues: readonly StandardSchemaV1.Issue[]

  constructor(toolName: string, message: string, issues: readonly StandardSchemaV1.Issue[] = [], options?: ErrorOptions) {
    super('TOOL_INPUT_INVALID', message, options)
    this.toolName = toolName
    this.issues = issues
  }
}

/** The tool did not produce a valid output: it threw (`cause`), returned an invalid output, or was denied. */
export class ToolExecutionError extends ToolgateError {
  readonly toolName: string

  constructor(toolName: string, message: string, options?: ErrorOptions, code = 'TOOL_EXECUTION_FAILED') {
    super(code, message, options)
    this.toolName = toolName
  }
}

/** The call needed approval and was refused; `message` is the tool's `rejectMessage` (with the reason). */
export class ToolDeniedError extends ToolExecutionError {
  readonly reason: string | undefined

  constructor(toolName: string, message: string, reason: string | undefined) {
    super(toolName, message, undefined, 'TOOL_DENIED')
    this.reason = reason
  }
}
