import type { ToolEmitter } from '../schema/toolEmitter.ts'
import type { AnyTool, ToolExecute } from './types.ts'

/** What the runtime needs from a tool but users should not reach for. */
export interface ToolInternals {
  readonly emit: ToolEmitter
  /** The user's `execute`, without validation around it (the runtime validates once itself). */
  readonly handler?: ToolExecute<unknown, unknown> | undefined
}

const registry = new WeakMap<object, ToolInternals>()

export function registerTool<TTool extends object>(tool: TTool, internals: ToolInternals): TTool {
  registry.set(tool, internals)
  return tool
}

export function internalsOf(tool: AnyTool): ToolInternals | undefined {
  return registry.get(tool)
}
