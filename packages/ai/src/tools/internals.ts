import { ToolgateError } from '../errors.ts'
import type { ToolEmitter } from '../schema/toolEmitter.ts'
import type { AnyTool, ToolExecute } from './types.ts'

/** What the runtime needs from a tool but users should not reach for. */
export interface ToolInternals {
  readonly emit: ToolEmitter
  /** The user's `execute`, without validation around it (the runtime validates once itself). */
  readonly handler?: ToolExecute<unknown, unknown> | undefined
}

/**
 * Internals live on the tool itself, under a global symbol and with a format number, rather than in
 * a module-level registry: an app that ends up with two copies of `@toolgate/ai` (a nested install)
 * still has one copy find the tools the other made. Bump `FORMAT` whenever `ToolInternals` changes
 * shape, so that copies that cannot read each other's tools say so instead of misbehaving.
 */
const INTERNALS = Symbol.for('@toolgate/ai.tool')
const FORMAT = 1

interface StoredInternals extends ToolInternals {
  readonly format: number
}

/** Attaches the internals (non-enumerable, so spreads and JSON never see them) and freezes the tool. */
export function sealTool<TTool extends object>(tool: TTool, internals: ToolInternals): TTool {
  const stored: StoredInternals = { format: FORMAT, ...internals }
  Object.defineProperty(tool, INTERNALS, { value: Object.freeze(stored) })
  return Object.freeze(tool)
}

/**
 * The internals of a tool made by `toolDefinition()` (in this copy of the package or another), or
 * `undefined` for a tool-shaped object made elsewhere. Throws `DUPLICATE_PACKAGE` for a tool made
 * by a copy whose internals this copy cannot read.
 */
export function internalsOf(tool: AnyTool): ToolInternals | undefined {
  const stored = (tool as { readonly [INTERNALS]?: StoredInternals })[INTERNALS]
  if (stored === undefined) return undefined
  if (stored.format !== FORMAT) {
    throw new ToolgateError(
      'DUPLICATE_PACKAGE',
      `Tool "${tool.name}" comes from another, incompatible copy of @toolgate/ai. ` +
        'Keep one copy: see `npm ls @toolgate/ai`, align the versions and run `npm dedupe`.',
    )
  }
  return stored
}
