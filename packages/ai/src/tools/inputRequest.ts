import type { JsonSchema } from '../schema/types.ts'
import type { ToolContext } from './types.ts'
import { isRecord } from '../util/isRecord.ts'

// A server tool's call that needs a person's input before it can finish (an MCP server's
// `input_required` result, or its `elicitation/create` during a call): the tool throws
// `ToolInputRequired`, the run stores the request as an interrupt with the thread and pauses, and
// once someone answers, the call runs again with the answer in its context (`inputAnswerOf`).
// Internal: the MCP import is its one user.

/** What the person is asked: a message and a flat object schema (the form), with state for the tool alone. */
export interface ToolInputRequest {
  readonly message: string
  /** A flat object schema (MCP's `requestedSchema`): its properties are the form's fields. */
  readonly schema: JsonSchema
  /**
   * What the tool needs to go on once answered (plain JSON: MCP's `requestState` and the request's
   * key, or a live session's id). Stored with the thread on the server only: never sent to a client.
   */
  readonly state: unknown
}

/** How the person answered: MCP elicitation's three actions. */
export interface ToolInputAnswer {
  readonly action: 'accept' | 'decline' | 'cancel'
  /** With `accept`: the form's values, checked against the request's schema. */
  readonly content?: Record<string, unknown>
  /** The request's `state`, as stored. */
  readonly state: unknown
}

/** Thrown by a server tool's execute: the call pauses for a person's input. */
export class ToolInputRequired extends Error {
  constructor(readonly request: ToolInputRequest) {
    super(request.message)
    this.name = 'ToolInputRequired'
  }
}

const INPUT_ANSWER = Symbol.for('@toolgate/ai.inputAnswer')

/** The context of a call run again with its answer. */
export function withInputAnswer<T extends object>(ctx: T, answer: ToolInputAnswer | undefined): T {
  return answer === undefined ? ctx : Object.defineProperty(ctx, INPUT_ANSWER, { value: answer })
}

/** The answer a call runs again with, when it paused for input. */
export function inputAnswerOf(ctx: ToolContext<unknown>): ToolInputAnswer | undefined {
  return (ctx as { readonly [INPUT_ANSWER]?: ToolInputAnswer })[INPUT_ANSWER]
}

/**
 * The request's schema as an approval form shows it: MCP's titled choices (`oneOf`/`anyOf` of
 * `{ const, title }`, for one value or in an array's `items`) become plain `enum`s, which every
 * form renders as a choice (the answer is still checked against the request's own schema).
 */
export function inputFormSchema(schema: JsonSchema): JsonSchema {
  if (!isRecord(schema.properties)) return schema
  const properties: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!isRecord(property)) properties[name] = property
    else if (isRecord(property.items)) properties[name] = { ...property, items: asEnum(property.items) }
    else properties[name] = asEnum(property)
  }
  return { ...schema, properties }
}

function asEnum(schema: Record<string, unknown>): Record<string, unknown> {
  const options = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined
  if (!options || options.length === 0 || !options.every((option) => isRecord(option) && 'const' in option)) return schema
  const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = schema
  return { ...rest, enum: options.map((option) => (option as { const: unknown }).const) }
}
