import type { StandardJSONSchemaV1, StandardSchemaV1, StandardTypedV1 } from '@standard-schema/spec'

/** A JSON Schema document, as plain data. */
export type JsonSchema = { [keyword: string]: unknown }

/** The JSON Schema dialects a tool schema can be emitted in. */
export type JsonSchemaTarget = 'draft-2020-12' | 'draft-07' | 'openapi-3.0'

/** Which of a tool's two schemas: what the tool takes, or what it returns. */
export type SchemaIo = 'input' | 'output'

/** What a tool accepts as a schema: any Standard Schema (Valibot, Zod, ArkType, ...) or plain JSON Schema. */
export type SchemaSource = StandardSchemaV1 | StandardJSONSchemaV1 | JsonSchema

/** The value a schema accepts before validation. */
export type InferSchemaInput<TSchema> = TSchema extends { readonly '~standard': StandardTypedV1.Props<infer I, any> }
  ? I
  : TSchema extends undefined
    ? undefined
    : Record<string, unknown>

/** The value a schema produces after validation. */
export type InferSchemaOutput<TSchema> = TSchema extends { readonly '~standard': StandardTypedV1.Props<any, infer O> }
  ? O
  : TSchema extends undefined
    ? undefined
    : unknown

/**
 * The form every tool schema is normalised to: a Standard Schema that can also emit JSON Schema,
 * whatever it was written in. `source` is the schema as the user gave it.
 */
export interface ToolSchema<TInput = unknown, TOutput = TInput>
  extends StandardSchemaV1<TInput, TOutput>,
    StandardJSONSchemaV1<TInput, TOutput> {
  readonly '~standard': StandardSchemaV1.Props<TInput, TOutput> & StandardJSONSchemaV1.Props<TInput, TOutput>
  readonly source: SchemaSource
}
