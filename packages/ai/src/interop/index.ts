export type { StandardTool, StandardToolSchema } from './standardTool.ts'
export { toTanStackTool, type TanStackTool, type TanStackToolOf } from './tanstack.ts'
export type { TanStackToolContext } from './tanstackContext.ts'
