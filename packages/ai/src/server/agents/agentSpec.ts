import type { ChatModel } from '../../model/chatModel.ts'
import type { Delegation, DelegatedTool, SubagentHop } from '../../protocol/interrupts.ts'
import { fixedApproval } from '../../tools/approval.ts'
import type { ToolEntry, ToolRegistry } from '../../tools/toolRegistry.ts'
import type { AnyTool } from '../../tools/types.ts'

// What the runtime knows of an agent tool (`agentTool`): its model, its tools, its limits. Kept
// beside the tool, by the tool object, so a tool list stays plain tools; the run, the answers and
// the wire find an inner call's tool through the path that reached it.

export interface AgentSpec {
  readonly name: string
  readonly description: string
  readonly model: ChatModel
  readonly tools: ToolRegistry
  readonly instructions: string | undefined
  /** Model calls the subagent may make per invocation; reaching it without an answer fails the call (`AGENT_STEP_LIMIT`). */
  readonly maxSteps: number
}

const specs = new WeakMap<object, AgentSpec>()

export function registerAgent(tool: AnyTool, spec: AgentSpec): void {
  specs.set(tool, spec)
}

/** The agent behind a tool, if it is an agent tool. */
export function agentOf(tool: AnyTool | undefined): AgentSpec | undefined {
  return tool === undefined ? undefined : specs.get(tool)
}

/** The tools seen at the end of `path` (each hop an agent tool of the registry before it); `undefined` once a hop is not one. */
function registryAt(tools: ToolRegistry, path: readonly SubagentHop[] | undefined): ToolRegistry | undefined {
  let registry = tools
  for (const hop of path ?? []) {
    const spec = agentOf(registry.get(hop.agent)?.tool)
    if (!spec) return undefined
    registry = spec.tools
  }
  return registry
}

/** The tool an interrupt's call names, looked up where its call was made (through its `path`). */
export function entryAt(tools: ToolRegistry, call: { readonly toolName: string; readonly path?: readonly SubagentHop[] | undefined }): ToolEntry | undefined {
  return registryAt(tools, call.path)?.get(call.toolName)
}

/**
 * What approving a call of an agent tool lets its subagent do: each tool it may call, and whether
 * that tool's calls will still ask (a fixed policy says; a function decides per call).
 */
export function delegationOf(spec: AgentSpec, depth = 0): Delegation {
  return {
    agent: spec.name,
    tools: spec.tools.names.map((name): DelegatedTool => {
      const entry = spec.tools.get(name)!
      const fixed = fixedApproval(entry.tool)
      const asks = fixed ? (fixed.required ? 'always' : 'never') : 'sometimes'
      const inner = agentOf(entry.tool)
      return {
        name,
        description: entry.tool.description,
        asks,
        ...(entry.side === 'client' ? { browser: true as const } : {}),
        ...(inner && depth < 8 ? { delegation: delegationOf(inner, depth + 1) } : {}),
      }
    }),
  }
}
