import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import { isRecord } from '../../util/isRecord.ts'
import { ChatError } from '../chatError.ts'

/**
 * An interrupt outcome's interrupts read as tool interrupts: Toolgate's fields under `metadata` (or
 * at the top, as servers before AG-UI 1.0 sent them), or AG-UI's alone (`toolCallId`; the tool's
 * name is then the call's). `reason` other than `client_tool` asks for approval (TanStack AI's
 * `tool_call` convention). Interrupts about no tool call are left out: this client cannot answer them.
 */
export function toolInterrupts(interrupts: readonly unknown[]): ToolInterrupt[] {
  return interrupts.flatMap((value: unknown, index: number) => {
    if (!isRecord(value) || typeof value.id !== 'string') {
      throw new ChatError('BAD_RESPONSE', `The server sent an interrupt without a string \`id\` (interrupts[${index}])`)
    }
    const metadata = isRecord(value.metadata) ? value.metadata : {}
    const toolCallId = value.toolCallId ?? metadata.toolCallId
    if (typeof toolCallId !== 'string') return []
    const toolName = value.toolName ?? metadata.toolName
    const interrupt: ToolInterrupt = {
      ...(value as object),
      id: value.id,
      reason: value.reason === 'client_tool' ? 'client_tool' : 'tool_approval',
      toolCallId,
      toolName: typeof toolName === 'string' ? toolName : '',
      input: 'input' in value ? value.input : metadata.input,
      ...(typeof value.message === 'string' ? { message: value.message } : {}),
      // A subagent's call: how it was reached, and an agent tool's call: what it delegates; under `metadata` on the stream (AG-UI's top level keeps only its own fields).
      ...(value.path ?? metadata.path ? { path: value.path ?? metadata.path } : {}),
      ...(value.delegation ?? metadata.delegation ? { delegation: value.delegation ?? metadata.delegation } : {}),
    } as ToolInterrupt
    return [interrupt]
  })
}
