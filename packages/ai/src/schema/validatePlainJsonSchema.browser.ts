import type { StandardSchemaV1 } from '@standard-schema/spec'
import { ToolgateError } from '../errors.ts'
import { serverSchemaSupport } from './serverSchemaSupport.ts'
import type { JsonSchema } from './types.ts'

/**
 * The browser build of `#validate-plain-json-schema`. Browser tools are nearly always written with a
 * schema library, so the JSON Schema validator (@cfworker/json-schema; the bundle bench prints its cost) stays out unless a tool asks
 * for it by wrapping its schema with `jsonSchema()`. Server code in the same bundle brings it back
 * (see serverSchemaSupport.ts).
 */
export function validatePlainJsonSchema(schema: JsonSchema, value: unknown): StandardSchemaV1.Issue[] {
  const server = serverSchemaSupport()
  if (server) return server.validateJsonSchema(schema, value)
  throw new ToolgateError(
    'JSON_SCHEMA_VALIDATOR_NOT_BUNDLED',
    'This browser build does not bundle the JSON Schema validator. Wrap the plain JSON Schema with ' +
      "jsonSchema() from '@toolgate/ai' to validate it in the browser, or use a schema library.",
  )
}

/**
 * The browser build does not check a plain JSON Schema against its meta-schema (the meta-schemas
 * would cost every bundle); the server build checks the same tool when it is defined there.
 */
export function plainJsonSchemaProblem(): undefined {
  return undefined
}
