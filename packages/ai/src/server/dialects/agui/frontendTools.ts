import { toolDefinition } from '../../../tools/toolDefinition.ts'
import type { AnyTool } from '../../../tools/types.ts'
import { isRecord } from '../../../util/isRecord.ts'
import type { ChatConfig } from '../../options.ts'
import { HttpError } from '../../errors.ts'
import { extendToolRegistry } from '../../../tools/toolRegistry.ts'
import { UnsafePatternError, withLinearPatterns } from './clientPatterns.ts'

// AG-UI frontend tools: tools a client declares in `RunAgentInput.tools` and runs itself. The server
// decides what the model may call, so they are ignored unless the app names them in
// `createChatHandler({ frontendTools })`. An accepted one is a client tool for that request: declared
// to the model with the client's JSON Schema, its arguments validated against that schema like any
// tool's. Its calls wait in the open step like any client tool's (a `client_tool` interrupt), but the
// wire says so AG-UI's way: the run ends `success` with `pendingToolCallIds`, and the next input
// answers with `tool` messages (toolMessages.ts turns them into the same answers as `resume`); how a run ends on them is
// run/outcome.ts's.

/** The config for one AG-UI request: the server's tools plus the client's that the app accepts. */
export function withFrontendTools(config: ChatConfig, declared: readonly unknown[]): ChatConfig {
  if (config.frontendTools.size === 0 || declared.length === 0) return config
  const accepted = new Map<string, AnyTool>() // a name declared twice: the first declaration counts
  for (const [index, tool] of declared.entries()) {
    if (!isRecord(tool) || typeof tool.name !== 'string' || !config.frontendTools.has(tool.name) || accepted.has(tool.name)) continue
    accepted.set(tool.name, frontendTool(tool, `tools[${index}]`))
  }
  if (accepted.size === 0) return config
  return { ...config, tools: extendToolRegistry(config.tools, [...accepted.values()], 'RunAgentInput.tools') }
}

function frontendTool(tool: Record<string, unknown>, path: string): AnyTool {
  const { name, description, parameters } = tool
  if (typeof description !== 'string') throw invalid('A frontend tool needs a string `description`', `${path}.description`)
  if (!isRecord(parameters) || parameters.type !== 'object') {
    throw invalid('A frontend tool needs `parameters`, a JSON Schema of an object', `${path}.parameters`)
  }
  let linear: ReturnType<typeof withLinearPatterns>
  try {
    linear = withLinearPatterns(parameters, `${path}.parameters`)
  } catch (error) {
    if (!(error instanceof UnsafePatternError)) throw error
    throw invalid(`The frontend tool "${String(name)}" declares a pattern the server will not run: ${error.reason}`, error.path)
  }
  let declared: AnyTool
  try {
    // The schema as declared is checked (its meta-schema) and emitted; its patterns run in linear time.
    declared = toolDefinition({ name: name as string, description, inputSchema: parameters })
  } catch (error) {
    throw invalid(`The frontend tool "${String(name)}" is not valid: ${error instanceof Error ? error.message : String(error)}`, path)
  }
  return linear ? toolDefinition({ name: name as string, description, inputSchema: linear }) : declared
}

function invalid(message: string, path: string): HttpError {
  return new HttpError(400, 'INVALID_REQUEST', message, path)
}
