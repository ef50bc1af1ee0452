import { InvalidOptionError } from '../errors.ts'
import type { ModelTool } from '../model/chatModel.ts'
import type { JsonSchema } from '../schema/types.ts'
import { toolApp, type ToolApp, type ToolAppVisibility } from './app.ts'
import { internalsOf } from './internals.ts'
import { toolJsonSchema } from './toolJsonSchema.ts'
import type { AnyTool, ToolContext, ToolExecute } from './types.ts'
import { isRecord } from '../util/isRecord.ts'
import { deepFreeze } from '../util/deepFreeze.ts'

/** A tool as the runtime holds it: which side runs it and, on the server, the raw execute. */
export interface ToolEntry {
  readonly tool: AnyTool
  readonly side: 'server' | 'client'
  /** Server tools only: the user's execute without validation (the runtime validates once itself). */
  readonly handler?: ToolExecute<unknown, unknown>
  /** The interrupt's `responseSchema` when a call of this tool asks for approval. */
  readonly approvalSchema: JsonSchema
  /** The MCP App its calls render in, checked at startup. */
  readonly app?: ToolApp
}

/** The tools of one chat handler, by name, with what the model is told of them. */
export interface ToolRegistry {
  get(name: string): ToolEntry | undefined
  readonly names: readonly string[]
  readonly modelTools: readonly ModelTool[]
}

/**
 * `.server()` tools run here; anything else (a bare definition, or a `.client()` tool passed by
 * mistake) is declared to the model and run by the browser. JSON Schemas are emitted now, so a
 * schema that cannot be converted fails at startup rather than mid-chat.
 */
export function createToolRegistry(tools: readonly AnyTool[], where: string): ToolRegistry {
  return registryOf(new Map(), tools, where)
}

/**
 * `base` with more tools (an AG-UI request's accepted frontend tools): the base's entries are
 * reused as they are, so only the new tools are checked and converted.
 */
export function extendToolRegistry(base: ToolRegistry, tools: readonly AnyTool[], where: string): ToolRegistry {
  return registryOf(new Map(base.names.map((name) => [name, base.get(name)!])), tools, where)
}

function registryOf(entries: Map<string, ToolEntry>, tools: readonly AnyTool[], where: string): ToolRegistry {
  for (const [index, tool] of tools.entries()) {
    if (!isTool(tool)) throw new InvalidOptionError(where, `tools[${index}]`, 'is not a tool: define it with toolDefinition()')
    if (entries.has(tool.name)) throw new InvalidOptionError(where, `tools[${index}]`, `repeats the name "${tool.name}"; tool names must be unique`)
    const approvalSchema = approvalResponseSchema(toolJsonSchema(tool))
    const app = toolApp(tool)
    const shared = app === undefined ? { tool, approvalSchema } : { tool, approvalSchema, app }
    entries.set(tool.name, tool.kind === 'server' ? { ...shared, side: 'server', handler: serverHandler(tool, where, index) } : { ...shared, side: 'client' })
  }
  const modelTools = [...entries.values()].filter(({ tool }) => visibleTo(tool, 'model')).map(({ tool }) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: toolJsonSchema(tool),
  }))
  return { get: (name) => entries.get(name), names: [...entries.keys()], modelTools }
}

/** Whether `who` may call the tool: a tool whose MCP App lists its `visibility` is called only by those it lists. */
export function visibleTo(tool: AnyTool, who: ToolAppVisibility): boolean {
  const app = toolApp(tool)
  return !app || app.visibility.includes(who)
}

function isTool(value: unknown): value is AnyTool {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    typeof value.description === 'string' &&
    (value.kind === 'definition' || value.kind === 'server' || value.kind === 'client')
  )
}

function serverHandler(tool: AnyTool, where: string, index: number): ToolExecute<unknown, unknown> {
  const handler = internalsOf(tool)?.handler
  if (handler) return handler
  // A server tool built elsewhere: its own execute validates again, which is harmless.
  const execute = (tool as { executeUnformatted?: (input: unknown, ctx: ToolContext) => Promise<unknown> }).executeUnformatted
  if (typeof execute !== 'function') throw new InvalidOptionError(where, `tools[${index}]`, `is server tool "${tool.name}" without an execute function`)
  return (input, ctx) => execute.call(tool, input, ctx)
}

/**
 * What answers an approval: `{ approved, editedArgs?, reason? }`. The tool's input schema sits whole
 * under `$defs.input` with an `$id` of its own, so the references inside it resolve as they did at its
 * root; the client takes it back out for the UI (`approval.inputSchema`).
 */
export function approvalResponseSchema(inputSchema: JsonSchema): JsonSchema {
  return deepFreeze({
    type: 'object',
    properties: {
      approved: { type: 'boolean' },
      editedArgs: { $ref: '#/$defs/input' },
      reason: { type: 'string' },
    },
    required: ['approved'],
    additionalProperties: false,
    $defs: { input: { ...inputSchema, $id: APPROVAL_INPUT_ID } },
  })
}

/** The `$id` of the tool's input schema inside an approval's `responseSchema`. */
export const APPROVAL_INPUT_ID = 'urn:toolgate:tool-input'
