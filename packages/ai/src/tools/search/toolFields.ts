import { toolJsonSchema } from '../toolJsonSchema.ts'
import type { AnyTool } from '../types.ts'

/** The parts of a tool a search reads, each weighted on its own. */
export interface ToolFields {
  readonly name: string
  readonly title: string
  /** The description's first sentence: what the tool does, before usage notes and pagination. */
  readonly summary: string
  /** The rest of the description. */
  readonly description: string
  /** Property names of the input schema, nested ones included. */
  readonly parameters: string
  /** Their descriptions and titles. */
  readonly parameterText: string
  /** String values of their enums and consts. */
  readonly values: string
}

export type FieldName = keyof ToolFields

export const FIELD_NAMES: readonly FieldName[] = ['name', 'title', 'summary', 'description', 'parameters', 'parameterText', 'values']

/** Deeper than this, schemas describe payloads, not what the tool is for. */
const MAX_DEPTH = 4

export function toolFields(tool: AnyTool): ToolFields {
  const parameters: string[] = []
  const parameterText: string[] = []
  const values: string[] = []
  let schema: unknown
  try {
    schema = toolJsonSchema(tool)
  } catch {
    schema = undefined // a schema that cannot be emitted still leaves the name and description
  }
  const visit = (node: unknown, depth: number) => {
    if (typeof node !== 'object' || node === null || depth > MAX_DEPTH) return
    const record = node as Record<string, unknown>
    if (depth > 0) {
      if (typeof record.description === 'string') parameterText.push(record.description)
      if (typeof record.title === 'string') parameterText.push(record.title)
    }
    if (Array.isArray(record.enum)) for (const value of record.enum) if (typeof value === 'string') values.push(value)
    if (typeof record.const === 'string') values.push(record.const)
    if (typeof record.properties === 'object' && record.properties !== null) {
      for (const [name, child] of Object.entries(record.properties)) {
        parameters.push(name)
        visit(child, depth + 1)
      }
    }
    visit(record.items, depth + 1)
    for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
      const branches = record[keyword]
      if (Array.isArray(branches)) for (const branch of branches) visit(branch, depth + 1)
    }
  }
  visit(schema, 0)
  return {
    name: tool.name,
    title: tool.title ?? '',
    ...splitDescription(tool.description),
    parameters: parameters.join(' '),
    parameterText: parameterText.join(' '),
    values: values.join(' '),
  }
}

/** The first sentence ends at ". ", "! ", "? " or a line break, whichever comes first. */
function splitDescription(description: string): { summary: string; description: string } {
  const end = description.search(/[.!?](\s|$)|\n/)
  if (end === -1) return { summary: description, description: '' }
  return { summary: description.slice(0, end + 1), description: description.slice(end + 1) }
}
