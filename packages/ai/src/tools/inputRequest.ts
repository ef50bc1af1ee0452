import type { JsonSchema } from '../schema/types.ts'
import type { ToolContext } from './types.ts'

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
