/** @module @toolgate/ai/telemetry */
/**
 * `@toolgate/ai/telemetry`: OpenTelemetry traces and metrics for the chat handler and MCP servers.
 * Needs `@opentelemetry/api` (an optional peer); nothing else in Toolgate loads it.
 */
export { openTelemetry, type OpenTelemetryOptions } from './openTelemetry.ts'
export type { ChatTelemetry, RunKind, WaitDecision } from './hooks.ts'
