import type { AiSdkPartMetadata } from '../../../protocol/aiSdk.ts'
import type { UIMessageChunk } from './uiMessageChunks.ts'

// `useChat` sends a browser tool's output as soon as the step's browser calls are done
// (`lastAssistantMessageIsCompleteWithToolCalls` skips server calls), so an output can arrive while
// an approval of its step still waits: the server holds it, and the run that answers tells what
// still waits. Were that all, the AI SDK would ask its `sendAutomaticallyWhen` again and send the
// same output again and again (a loop of requests). So the answer also tells the held outputs back as the server's own
// (`providerExecuted`: `onToolCall` does not run them again and the condition no longer counts
// them) and marks them `answered` (the request that completes the step does not give them again).

/** A browser tool's output (or failure) a request gives, as its part names the call. */
export interface GivenOutput {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
  /** The stored assistant message the call belongs to. */
  readonly messageId: string | undefined
  readonly interruptId: string
  readonly answer: { readonly output: unknown } | { readonly error: string }
  /** Where the part is in the request (`messages[1].parts[2]`), for refusals. */
  readonly path: string
}

/**
 * The chunks that tell `output` back as held: the call as the server's (`providerExecuted`, marked
 * `answered`), then its output. No `resultId`: the thread has no result for it until the step closes.
 */
export function heldOutputChunks({ toolCallId, toolName, input, messageId, interruptId, answer }: GivenOutput): UIMessageChunk[] {
  const providerMetadata: AiSdkPartMetadata = { toolgate: { ...(messageId === undefined ? {} : { messageId }), interruptId, answered: true } }
  return [
    { type: 'tool-input-available', toolCallId, toolName, input, providerExecuted: true, providerMetadata },
    'output' in answer ? { type: 'tool-output-available', toolCallId, output: answer.output, providerExecuted: true } : { type: 'tool-output-error', toolCallId, errorText: answer.error, providerExecuted: true },
  ]
}
