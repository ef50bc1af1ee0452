import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'

/** A schema that both validates and describes itself as JSON Schema, as StandardTool requires. */
export type StandardToolSchema<TInput = unknown, TOutput = TInput> = StandardSchemaV1<TInput, TOutput> &
  StandardJSONSchemaV1<TInput, TOutput>

/**
 * The `StandardToolV0` shape of the standard-tool RFC: a portable tool any framework can consume.
 * Declared here rather than imported so conforming costs no dependency; every `.server()` and
 * `.client()` tool is assignable to it (see test/interop/standardTool.test-d.ts).
 *
 * `Input` is what `execute` accepts (the input schema's input side), `Output` what it returns once
 * validated (the output schema's output side), `FormattedOutput` what formatting makes of it.
 */
export interface StandardTool<Input = unknown, Output = unknown, FormattedOutput = Output, Meta = unknown> {
  readonly name: string
  readonly title?: string | undefined
  readonly description: string
  readonly inputSchema?: StandardToolSchema<Input, unknown> | undefined
  readonly outputSchema?: StandardToolSchema<unknown, Output> | undefined
  /**
   * Validates the input, runs, validates the output; throws on a violation unless formatted.
   * The input may be left out while no input schema fixes its type.
   */
  execute(
    ...args: unknown extends Input ? [input?: Input, meta?: Meta] : [input: Input, meta?: Meta]
  ): FormattedOutput | Promise<FormattedOutput>
  /** Reshapes the unformatted result (output or `Error`); without `format`, errors become `{ error }`. */
  formatted<F = Output | { error: string }>(
    format?: (result: Output | Error) => F | Promise<F>,
  ): StandardTool<Input, Output, F, Meta>
}
