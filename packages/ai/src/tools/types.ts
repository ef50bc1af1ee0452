import type { DecisionSummary, Principal, Reviewers } from '../protocol/decisions.ts'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonSchemaHook } from '../schema/emitJsonSchema.ts'
import type { InferSchemaOutput, SchemaSource, ToolSchema } from '../schema/types.ts'
import type { ToolApp, ToolAppConfig } from './app.ts'
import type { ToolContentResult } from './toolResult.ts'

/** Free data carried with a tool to clients and exports (an icon, a `destructive` flag, ...). */
export type ToolMetadata = { readonly [key: string]: unknown }

/**
 * Declares app-wide types once, by declaration merging:
 *
 * ```ts
 * declare module '@toolgate/ai' {
 *   interface Register {
 *     context: { userId: string } // what the chat handler's `context` option returns
 *   }
 * }
 * ```
 *
 * Executors and approval policies then see `ctx.context` with that type instead of `unknown`.
 */
export interface Register {}

/** The app's context type as declared on `Register`, else `unknown`. */
export type RegisteredContext = Register extends { readonly context: infer TContext } ? TContext : unknown

/** What a tool's `contextSchema` may be: any Standard Schema (the values are the app's, never JSON from a model). */
export type ContextSchema = StandardSchemaV1

/** The `ctx.context` a tool sees: its `contextSchema`'s output, else the registered context. */
export type ToolContextOf<TContextSchema> = [TContextSchema] extends [undefined]
  ? RegisteredContext
  : TContextSchema extends StandardSchemaV1
    ? StandardSchemaV1.InferOutput<TContextSchema>
    : RegisteredContext

/** What the app must supply for a tool: its `contextSchema`'s input, else the registered context. */
export type RequiredContextOf<TContextSchema> = [TContextSchema] extends [undefined]
  ? RegisteredContext
  : TContextSchema extends StandardSchemaV1
    ? StandardSchemaV1.InferInput<TContextSchema>
    : RegisteredContext

/** What a tool's `execute` receives beside its input. */
export interface ToolContext<TContext = RegisteredContext> {
  /** The id of the model's call being executed; the same when an `idempotent` tool runs again after a crash. */
  readonly toolCallId: string
  /** Aborted when the run stops, the client goes away or the tool times out. */
  readonly signal: AbortSignal
  /**
   * The app's own data, as given to the chat handler (the user, a database, ...): always the
   * requester's, also when a reviewer's decision resumed the call (it acts for the person who asked).
   */
  readonly context: TContext
  /**
   * The decision the call runs under, when a person allowed it: who (`by`), how (`channel`:
   * `chat`, `review-link`, `api`; `decision: 'granted'` under a grant), and what they edited.
   */
  readonly decision?: DecisionSummary
}

/** What an approval policy receives beside the validated input. */
export interface ApprovalContext<TContext = RegisteredContext> {
  readonly toolCallId: string
  readonly context: TContext
  /** Who the call is made for (the principal `identify` gave the request); anonymous without `identify`. */
  readonly requestedBy?: Principal
}

/**
 * `true` or `{ reason }` asks a human first; `false` lets the call run. `{ reason, reviewers }`
 * asks someone other than the requester: anyone in `roles`, or one of `users`, `required`
 * distinct people (two-person rule: 2).
 */
export type ApprovalDecision = boolean | { readonly reason: string; readonly reviewers?: Reviewers }

export type ApprovalPolicy<TInput = any, TContext = RegisteredContext> = (
  input: TInput,
  ctx: ApprovalContext<TContext>,
) => ApprovalDecision | Promise<ApprovalDecision>

/** The call a human denied, as `rejectMessage` sees it. */
export interface RejectedCall<TInput = unknown> {
  readonly toolCallId: string
  readonly toolName: string
  /** The arguments as the model sent them (not validated again). */
  readonly input: TInput
}

/**
 * What the model reads when a human denies a call: a fixed text, or one made from the call. The
 * human's reason, when given, is added after it.
 */
export type RejectMessage<TInput = unknown> = string | ((call: RejectedCall<TInput>) => string)

/** Always, never, or decided per call from its validated input. */
export type NeedsApproval<TInput = any> = boolean | ApprovalPolicy<TInput, any>

export type ToolKind = 'definition' | 'server' | 'client'

/** What every tool has, whether a bare definition or built for a side. */
export interface ToolShape<
  TName extends string = string,
  TInput = any,
  TOutput = any,
  TApproval extends NeedsApproval = NeedsApproval,
  TMetadata extends ToolMetadata = ToolMetadata,
  TRawInput = TInput,
  TContext = RegisteredContext,
> {
  readonly kind: ToolKind
  readonly name: TName
  readonly title?: string | undefined
  readonly description: string
  readonly inputSchema?: ToolSchema<TRawInput, TInput> | undefined
  readonly outputSchema?: ToolSchema<unknown, TOutput> | undefined
  readonly needsApproval: TApproval
  /** What the model reads when a human denies a call; the default says it was denied. */
  // `any`: typed where it is written (the definition); here a tool stays assignable to wider tool types.
  readonly rejectMessage?: RejectMessage<any> | undefined
  readonly metadata: TMetadata
  /** Run again under the same `toolCallId` after a crash cut a call off (see `toolDefinition`). */
  readonly idempotent?: boolean | undefined
  /** Only reads: its call may start before its running mark is stored, and runs again after a crash (see `toolDefinition`). */
  readonly readOnly?: boolean | undefined
  /** The app's values the tool needs (`ctx.context`), checked when a turn starts. */
  readonly contextSchema?: StandardSchemaV1<TContext, unknown> | undefined
  readonly toJsonSchema?: JsonSchemaHook | undefined
  /** The MCP App its calls render in, as the definition gave it; the server reads it through `toolApp()`. */
  readonly app?: ToolAppConfig | ToolApp | undefined
  /**
   * Carries the types; never set at run time. `rawInput` is what a caller (or a model) sends,
   * `input` what `execute` receives once validated: they differ where a schema has defaults or
   * transforms. `context` is what the app must supply for the tool.
   */
  readonly '~types'?: { readonly input: TInput; readonly output: TOutput; readonly rawInput: TRawInput; readonly context: TContext } | undefined
}

/** Any tool, definition or built. */
export type AnyTool = ToolShape<string, any, any, any, any, any, any>

export type ToolExecute<TInput, TResult, TContext = RegisteredContext> = (
  input: TInput,
  ctx: ToolContext<TContext>,
) => TResult | Promise<TResult>

/** A tool whose input type is open (no input schema) can be called with no argument. */
type ExecuteArgs<TInput> = unknown extends TInput ? [input?: TInput, meta?: unknown] : [input: TInput, meta?: unknown]

/** The default result of `formatted()`: the output, or the error's message. */
export type DefaultFormattedOutput<TOutput> = TOutput | { error: string }

/**
 * A tool bound to a side with its `execute`. It is a StandardTool: `execute` validates input,
 * runs, validates output and throws `ToolValidationError` on a violation.
 */
export interface BuiltTool<
  TKind extends 'server' | 'client',
  TName extends string,
  TInput,
  TOutput,
  TApproval extends NeedsApproval,
  TMetadata extends ToolMetadata,
  TFormatted = TOutput,
  TRawInput = TInput,
  TContext = RegisteredContext,
> extends ToolShape<TName, TInput, TOutput, TApproval, TMetadata, TRawInput, TContext> {
  readonly kind: TKind
  /** `meta` reaches the handler untouched; without it the handler gets a fresh context. */
  execute(...args: ExecuteArgs<TRawInput>): Promise<TFormatted>
  /** Validate, run, validate, and return the output itself (the `toolResult()` when `execute` returned one); throws on a violation. */
  executeUnformatted(...args: ExecuteArgs<TRawInput>): Promise<TOutput>
  /** Errors become `{ error: message }` instead of being thrown. */
  formatted(): BuiltTool<TKind, TName, TInput, TOutput, TApproval, TMetadata, DefaultFormattedOutput<TOutput>, TRawInput, TContext>
  /** Reshape the result (the output or the `Error`); replaces any earlier formatting. */
  formatted<TNext>(
    format: (result: TOutput | Error) => TNext | Promise<TNext>,
  ): BuiltTool<TKind, TName, TInput, TOutput, TApproval, TMetadata, TNext, TRawInput, TContext>
}

export type ServerTool<
  TName extends string = string,
  TInput = any,
  TOutput = any,
  TApproval extends NeedsApproval = NeedsApproval,
  TMetadata extends ToolMetadata = ToolMetadata,
  TFormatted = TOutput,
  TRawInput = TInput,
  TContext = RegisteredContext,
> = BuiltTool<'server', TName, TInput, TOutput, TApproval, TMetadata, TFormatted, TRawInput, TContext>

export type ClientTool<
  TName extends string = string,
  TInput = any,
  TOutput = any,
  TApproval extends NeedsApproval = NeedsApproval,
  TMetadata extends ToolMetadata = ToolMetadata,
  TFormatted = TOutput,
  TRawInput = TInput,
  TContext = RegisteredContext,
> = BuiltTool<'client', TName, TInput, TOutput, TApproval, TMetadata, TFormatted, TRawInput, TContext>

/** The input `execute` sees: the schema's output, or whatever `execute` declares without one. */
type ExecuteInput<TSchema> = [TSchema] extends [undefined] ? unknown : InferSchemaOutput<TSchema>
/** What `execute` may return: the output schema's input, or anything without one. */
type ExecuteResult<TSchema> = [TSchema] extends [undefined]
  ? unknown
  : TSchema extends StandardSchemaV1
    ? StandardSchemaV1.InferInput<TSchema> | ToolContentResult<StandardSchemaV1.InferInput<TSchema>>
    : unknown
/** The tool's output: the output schema's output, or what `execute` returns without one. */
/** A `toolResult()`'s output is the tool's output: what the model and the UI read as `output`. */
type ResolvedOutput<TSchema, TResult> = [TSchema] extends [undefined]
  ? TResult extends ToolContentResult<infer TOutput> ? TOutput : TResult
  : InferSchemaOutput<TSchema>
/** What `execute()` returns: the output, or the `toolResult()` carrying it and its content. */
type ResolvedResult<TSchema, TResult> = TResult extends ToolContentResult<any> ? ToolContentResult<ResolvedOutput<TSchema, TResult>> : ResolvedOutput<TSchema, TResult>
/** What a caller sends: the input schema's input, or what `execute` declares without one. */
type ResolvedRawInput<TSchema, TInput> = [TSchema] extends [undefined]
  ? TInput
  : TSchema extends StandardSchemaV1
    ? StandardSchemaV1.InferInput<TSchema>
    : TInput

/** What `.server()` and `.client()` return: the definition's types resolved against `execute`'s. */
type BoundTool<
  TKind extends 'server' | 'client',
  TName extends string,
  TInputSchema,
  TOutputSchema,
  TApproval extends NeedsApproval,
  TMetadata extends ToolMetadata,
  TInput,
  TResult,
  TContextSchema = undefined,
> = BuiltTool<
  TKind,
  TName,
  TInput,
  ResolvedOutput<TOutputSchema, TResult>,
  TApproval,
  TMetadata,
  ResolvedResult<TOutputSchema, TResult>,
  ResolvedRawInput<TInputSchema, TInput>,
  RequiredContextOf<TContextSchema>
>

/** A tool as defined once, before it is bound to a side. */
export interface ToolDefinition<
  TName extends string = string,
  TInputSchema extends SchemaSource | undefined = any,
  TOutputSchema extends SchemaSource | undefined = any,
  TApproval extends NeedsApproval = NeedsApproval,
  TMetadata extends ToolMetadata = ToolMetadata,
  TContextSchema extends ContextSchema | undefined = any,
> extends ToolShape<
    TName,
    InferSchemaOutput<TInputSchema>,
    InferSchemaOutput<TOutputSchema>,
    TApproval,
    TMetadata,
    ResolvedRawInput<TInputSchema, InferSchemaOutput<TInputSchema>>,
    RequiredContextOf<TContextSchema>
  > {
  readonly kind: 'definition'
  /** Bind the tool to the server: `execute` runs there. */
  server<TInput extends ExecuteInput<TInputSchema> = ExecuteInput<TInputSchema>, TResult extends ExecuteResult<TOutputSchema> = ExecuteResult<TOutputSchema>>(
    execute: ToolExecute<TInput, TResult, ToolContextOf<TContextSchema>>,
  ): BoundTool<'server', TName, TInputSchema, TOutputSchema, TApproval, TMetadata, TInput, TResult, TContextSchema>
  /** Bind the tool to the browser: `execute` runs there when the server asks. */
  client<TInput extends ExecuteInput<TInputSchema> = ExecuteInput<TInputSchema>, TResult extends ExecuteResult<TOutputSchema> = ExecuteResult<TOutputSchema>>(
    execute: ToolExecute<TInput, TResult, ToolContextOf<TContextSchema>>,
  ): BoundTool<'client', TName, TInputSchema, TOutputSchema, TApproval, TMetadata, TInput, TResult, TContextSchema>
}

/** The name, input and output types of any tool. */
export type InferToolName<TTool> = TTool extends ToolShape<infer TName, any, any, any, any> ? TName : never
export type InferToolInput<TTool> = TTool extends { readonly '~types'?: { readonly input: infer I } | undefined } ? I : never
export type InferToolOutput<TTool> = TTool extends { readonly '~types'?: { readonly output: infer O } | undefined } ? O : never
/** What a caller or a model sends, before validation applies defaults and transforms. */
export type InferToolRawInput<TTool> = TTool extends { readonly '~types'?: { readonly rawInput: infer R } | undefined } ? R : never
/** What the app must supply for a tool (its `contextSchema`'s input, else the registered context). */
export type InferToolContext<TTool> = TTool extends { readonly '~types'?: { readonly context: infer C } | undefined } ? C : never
