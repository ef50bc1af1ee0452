import { ToolgateError } from '../errors.ts'
import type { JsonSchema } from './types.ts'

/**
 * The browser build of `#validate-plain-json-schema`. Browser tools are nearly always written with a
 * schema library, so the JSON Schema validator (about 2.4 KB gzipped) stays out unless a tool asks
 * for it by wrapping its schema with `jsonSchema()`.
 */
export function validatePlainJsonSchema(_schema: JsonSchema, _value: unknown): never {
  throw new ToolgateError(
    'JSON_SCHEMA_VALIDATOR_NOT_BUNDLED',
    'This browser build does not bundle the JSON Schema validator. Wrap the plain JSON Schema with ' +
      "jsonSchema() from '@toolgate/ai' to validate it in the browser, or use a schema library.",
  )
}
