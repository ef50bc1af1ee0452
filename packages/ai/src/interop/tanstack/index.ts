/** @module @toolgate/ai/interop/tanstack */
/** `@toolgate/ai/interop/tanstack`: tools for TanStack AI's `chat()`. Needs `@tanstack/ai`. */
export { toTanStackTool, type TanStackTool, type TanStackToolOf } from './tools.ts'
export type { TanStackToolContext } from './context.ts'
export { fromTanStackAdapter, type FromTanStackAdapterOptions } from './model.ts'
