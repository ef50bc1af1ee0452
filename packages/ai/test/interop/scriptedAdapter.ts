import type { AdapterYieldChunk, AnyTextAdapter, TextOptions } from '@tanstack/ai'

/** One scripted model turn: some tool calls, or a text answer. */
export type ScriptedTurn =
  | { readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly args: unknown }[] }
  | { readonly text: string }

/**
 * A TanStack AI text adapter that plays back scripted turns instead of calling a model, and records
 * every request (`tools` as the adapter sees them: JSON Schema already emitted).
 */
export function scriptedAdapter(turns: readonly ScriptedTurn[]) {
  const requests: TextOptions[] = []
  const adapter = {
    kind: 'text',
    name: 'scripted',
    model: 'scripted-model',
    async *chatStream(options: TextOptions): AsyncIterable<AdapterYieldChunk> {
      requests.push(options)
      const turn = turns[requests.length - 1] ?? { text: '' }
      const runId = `turn_${requests.length}`
      yield chunk({ type: 'RUN_STARTED', threadId: 'thread', runId })
      if ('toolCalls' in turn) {
        for (const [index, call] of turn.toolCalls.entries()) {
          yield chunk({ type: 'TOOL_CALL_START', toolCallId: call.id, toolCallName: call.name, index })
          yield chunk({ type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta: JSON.stringify(call.args) })
          yield chunk({ type: 'TOOL_CALL_END', toolCallId: call.id })
        }
      } else {
        const messageId = `${runId}_text`
        yield chunk({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' })
        yield chunk({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: turn.text })
        yield chunk({ type: 'TEXT_MESSAGE_END', messageId })
      }
      const finishReason = 'toolCalls' in turn ? 'tool_calls' : 'stop'
      yield chunk({ type: 'RUN_FINISHED', threadId: 'thread', runId, finishReason })
    },
    async structuredOutput(): Promise<never> {
      throw new Error('not scripted')
    },
  } as unknown as AnyTextAdapter
  return { adapter, requests }
}

function chunk(fields: Record<string, unknown>): AdapterYieldChunk {
  return { ...fields, timestamp: Date.now() } as AdapterYieldChunk
}

/** Drains a chat stream. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const chunks: T[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

/** The tool results of a run, by tool call id: what the model is sent back. */
export function toolResults(chunks: readonly unknown[]): Map<string, { content: unknown; failed: boolean }> {
  const results = new Map<string, { content: unknown; failed: boolean }>()
  for (const chunk of chunks as { type: string; toolCallId?: string; content?: string; metadata?: any }[]) {
    if (chunk.type !== 'TOOL_CALL_RESULT' || !chunk.toolCallId) continue
    const failed = chunk.metadata?.tanstack?.state === 'output-error'
    results.set(chunk.toolCallId, { content: parseContent(chunk.content), failed })
  }
  return results
}

/** TanStack sends a string result as is and anything else as JSON. */
function parseContent(content: string | undefined): unknown {
  try {
    return JSON.parse(content ?? 'null')
  } catch {
    return content
  }
}

/** The interrupts a run ended on, if it paused for a human. */
export function interruptsOf(chunks: readonly unknown[]): { id: string; toolCallId?: string; metadata?: any }[] {
  const last = chunks.at(-1) as { type?: string; outcome?: { type: string; interrupts?: any[] } } | undefined
  return last?.type === 'RUN_FINISHED' && last.outcome?.type === 'interrupt' ? (last.outcome.interrupts ?? []) : []
}
