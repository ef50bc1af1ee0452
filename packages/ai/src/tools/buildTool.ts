import { InvalidOptionError, ToolDefinitionError } from '../errors.ts'
import { internalsOf, sealTool } from './internals.ts'
import type { AnyTool, BuiltTool, ToolContext, ToolExecute } from './types.ts'
import { validateToolInput, validateToolOutput } from './validateToolValue.ts'

type Format = (result: unknown) => unknown

const defaultFormat: Format = (result) => (result instanceof Error ? { error: result.message } : result)

/** Binds a definition to a side: `execute` becomes validate → run → validate. */
export function buildTool(
  kind: 'server' | 'client',
  definition: AnyTool,
  handler: ToolExecute<unknown, unknown>,
  format?: Format,
): BuiltTool<'server' | 'client', string, unknown, unknown, any, any, unknown> {
  const where = `.${kind}() of tool "${definition.name}"`
  const internals = internalsOf(definition)
  // Unreachable through the public API: `.server()`/`.client()` close over their own definition.
  if (!internals) throw new ToolDefinitionError(`${where}: not a tool made by toolDefinition()`)
  if (typeof handler !== 'function') {
    throw new InvalidOptionError(where, 'execute', `must be a function, received ${typeof handler}`)
  }
  // A browser tool's call is handed to the browser (an interrupt): there is no running mark to skip.
  if (kind === 'client' && definition.readOnly === true) {
    throw new ToolDefinitionError(`${where}: \`readOnly\` is for server tools (a call may start before its running mark is stored); a browser tool has no such mark`)
  }

  const executeUnformatted = async (input: unknown, meta?: unknown) => {
    const validInput = await validateToolInput(definition, input)
    const output = await handler(validInput, (meta ?? freshContext()) as ToolContext)
    return validateToolOutput(definition, output)
  }
  const execute = format
    ? async (input: unknown, meta?: unknown) => {
        let result: unknown
        try {
          result = await executeUnformatted(input, meta)
        } catch (error) {
          result = error instanceof Error ? error : new Error(String(error))
        }
        return format(result)
      }
    : executeUnformatted

  const { server: _server, client: _client, ...shape } = definition as AnyTool & Record<string, unknown>
  const tool = {
    ...shape,
    kind,
    execute,
    executeUnformatted,
    // Formatting always starts again from the unformatted result, so it replaces, never stacks.
    formatted: (next?: Format) => buildTool(kind, definition, handler, next ?? defaultFormat),
  }
  return sealTool(tool, { emit: internals.emit, handler }) as never
}

function freshContext(): ToolContext<undefined> {
  return { toolCallId: '', signal: new AbortController().signal, context: undefined }
}

