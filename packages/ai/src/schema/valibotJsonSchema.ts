import { toJsonSchema } from '@valibot/to-json-schema'
import type { JsonSchemaTarget } from './types.ts'

/**
 * Custom checks are code, not data: JSON Schema cannot say them, and run-time validation enforces
 * them anyway. Left out, as Zod and ArkType leave out their refinements.
 */
const CODE_CHECKS = ['check', 'check_items', 'partial_check', 'raw_check']

/** Converts a plain Valibot schema with Valibot's official converter. */
export function valibotJsonSchema(schema: unknown, target: JsonSchemaTarget, typeMode: 'input' | 'output'): unknown {
  return toJsonSchema(schema as Parameters<typeof toJsonSchema>[0], {
    target,
    typeMode,
    errorMode: 'throw',
    ignoreActions: CODE_CHECKS,
  })
}
