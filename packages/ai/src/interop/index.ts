/** @module @toolgate/ai/interop */
/**
 * `@toolgate/ai/interop`: what needs no other package. Each integration with a peer has its own
 * subpath, so a project pays (in types and in bundles) only for what it imports:
 * `@toolgate/ai/interop/mcp`, `@toolgate/ai/interop/ai-sdk`, `@toolgate/ai/interop/tanstack`.
 */
export type { StandardTool, StandardToolSchema } from './standardTool.ts'
