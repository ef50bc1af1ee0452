import type { JsonSchema } from '../schema/types.ts'
import { conversionStats, memoize } from './cache.ts'
import { convertSchema, type SchemaConversion } from './convertSchema.ts'
import { deepFreeze } from '../util/deepFreeze.ts'
import { isPlainObject } from '../util/isPlainObject.ts'
import { assertProviderTarget, conversionKey, resolveOptions, type ProviderOptions, type ProviderTarget, type ResolvedOptions } from './targets.ts'
import type { ProviderSchemaResult } from './types.ts'
import { isLossy } from './warnings.ts'

export interface CachedSchemaConversion extends SchemaConversion {
  readonly result: ProviderSchemaResult
}

const cache = new WeakMap<object, Map<string, CachedSchemaConversion>>()

/**
 * A bare JSON Schema (draft-07, 2020-12 or OpenAPI 3.0 style) converted for a target, with the
 * warnings of what moved or changed. Throws `ProviderSchemaError` for a schema no provider can
 * take. Results of frozen schemas (as `toolJsonSchema` returns) are cached and frozen.
 */
export function toProviderSchema<T extends ProviderTarget>(jsonSchema: JsonSchema | boolean, target: T, options?: ProviderOptions<T>): ProviderSchemaResult<T> {
  assertProviderTarget(target)
  return schemaConversion(jsonSchema, target, resolveOptions(target, options)).result as ProviderSchemaResult<T>
}

/** The conversion behind `toProviderSchema`, memoized per frozen schema, target and options. */
export function schemaConversion(schema: unknown, target: ProviderTarget, options: ResolvedOptions): CachedSchemaConversion {
  const make = () => {
    conversionStats.schemas++
    const conversion = convertSchema(schema, target, options)
    const result: ProviderSchemaResult = deepFreeze({
      schema: conversion.schema,
      warnings: conversion.warnings,
      lossy: isLossy(conversion.warnings),
      strict: conversion.strict,
    })
    return { ...conversion, result }
  }
  // A schema that can still change cannot be cached by identity.
  if (!isPlainObject(schema) || !Object.isFrozen(schema)) return make()
  return memoize(cache, schema, conversionKey(target, options), make)
}
