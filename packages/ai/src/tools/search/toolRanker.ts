import type { AnyTool } from '../types.ts'

/** Scores each tool for `text`, aligned with `tools`; higher is better, 0 or less leaves a tool out. */
export type ToolRanker = (text: string, tools: readonly AnyTool[]) => readonly number[] | Promise<readonly number[]>
