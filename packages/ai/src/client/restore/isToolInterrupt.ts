import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import { isRecord } from '../../util/isRecord.ts'

export function isToolInterrupt(value: unknown): value is ToolInterrupt {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    (value.reason === 'tool_approval' || value.reason === 'client_tool') &&
    typeof value.toolCallId === 'string' &&
    typeof value.toolName === 'string' &&
    (value.message === undefined || typeof value.message === 'string')
  )
}
