import type { JsonSchema } from '../schema/types.ts'

/** A schema object while it is being built; frozen once the conversion is done. */
export type MutableSchema = { [keyword: string]: unknown }

export function omit(node: JsonSchema, keys: Iterable<string>): MutableSchema {
  const out: MutableSchema = { ...node }
  for (const key of keys) delete out[key]
  return out
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []
}

/** Compact JSON for description text, cut to stay short enough for a model to read. */
export function shortJson(value: unknown, max = 160): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
