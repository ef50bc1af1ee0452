import type { ElicitRequestFormParams, PrimitiveSchemaDefinition } from '@modelcontextprotocol/server'
import type { JsonSchema } from '../../schema/types.ts'
import { isRecord } from '../../util/isRecord.ts'
import type { McpServableTool } from './types.ts'

/** An approval as an MCP form: what `elicitation/create` sends, and which arguments it lets the user change. */
export interface McpApprovalForm {
  readonly params: ElicitRequestFormParams
  /** The top-level arguments the form shows as fields; an answer may change these and no others. */
  readonly editable: ReadonlySet<string>
}

/** The string formats a form field may carry (MCP's `StringSchema.format`). */
const FORMATS = ['date', 'date-time', 'email', 'uri'] as const
type FieldFormat = (typeof FORMATS)[number]

function isFieldFormat(value: unknown): value is FieldFormat {
  return FORMATS.includes(value as FieldFormat)
}

/**
 * The form asking a human to approve one call. The message names the tool, the policy's reason
 * and every argument (as JSON, so nothing is hidden); each top-level argument MCP can show as a
 * field (a string, a number, a boolean, a choice of strings: MCP forms are flat) becomes one,
 * filled with the model's value, so accepting as shown runs the call as asked. Arguments a form
 * cannot express (objects, arrays, unions, `null`) stay in the message only, unchangeable.
 */
export function approvalForm(tool: McpServableTool, schema: JsonSchema, args: unknown, reason: string | undefined): McpApprovalForm {
  const values = isRecord(args) ? args : {}
  const declared = isRecord(schema.properties) ? (schema.properties as Record<string, unknown>) : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const properties: Record<string, PrimitiveSchemaDefinition> = {}
  for (const [name, property] of Object.entries(declared)) {
    const field = isRecord(property) ? formField(name, property, values[name]) : undefined
    if (field) properties[name] = field
  }
  const editable = new Set(Object.keys(properties))
  const requestedSchema = {
    type: 'object' as const,
    properties,
    ...(required.size > 0 ? { required: [...editable].filter((name) => required.has(name)) } : {}),
  }
  return { params: { message: approvalMessage(tool, values, reason, editable.size > 0), requestedSchema }, editable }
}

function approvalMessage(tool: McpServableTool, args: Record<string, unknown>, reason: string | undefined, editable: boolean): string {
  const named = tool.title ? `"${tool.title}" (${tool.name})` : `"${tool.name}"`
  return [
    `Allow the tool ${named} to run?`,
    ...(reason ? [`Why it asks: ${reason}`] : []),
    `Arguments: ${JSON.stringify(args, null, 2)}`,
    editable ? 'Accept to run it with the values below (you may change them first); decline to refuse it.' : 'Accept to run it; decline to refuse it.',
  ].join('\n')
}

/**
 * One property as a form field, or `undefined` when MCP's flat primitive fields cannot show it
 * faithfully. Constraints a field cannot carry (a `pattern`, another `format`) are not lost: the
 * answer is validated against the tool's own schema before anything runs.
 */
function formField(name: string, schema: Record<string, unknown>, value: unknown): PrimitiveSchemaDefinition | undefined {
  const label = {
    title: typeof schema.title === 'string' ? schema.title : name,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  }
  const current = value === undefined ? schema.default : value
  if (Array.isArray(schema.enum)) {
    const options = schema.enum
    if (options.length === 0 || !options.every((option) => typeof option === 'string')) return undefined
    return { type: 'string', ...label, enum: options as string[], ...(typeof current === 'string' && options.includes(current) ? { default: current } : {}) }
  }
  if ('const' in schema) return undefined
  switch (schema.type) {
    case 'string':
      return {
        type: 'string',
        ...label,
        ...numberAt(schema, 'minLength'),
        ...numberAt(schema, 'maxLength'),
        ...(isFieldFormat(schema.format) ? { format: schema.format } : {}),
        ...(typeof current === 'string' ? { default: current } : {}),
      }
    case 'number':
    case 'integer':
      return {
        type: schema.type,
        ...label,
        ...numberAt(schema, 'minimum'),
        ...numberAt(schema, 'maximum'),
        ...(typeof current === 'number' ? { default: current } : {}),
      }
    case 'boolean':
      return { type: 'boolean', ...label, ...(typeof current === 'boolean' ? { default: current } : {}) }
    default:
      return undefined
  }
}

function numberAt<TKey extends string>(schema: Record<string, unknown>, key: TKey): { [K in TKey]?: number } {
  const value = schema[key]
  return (typeof value === 'number' ? { [key]: value } : {}) as { [K in TKey]?: number }
}
