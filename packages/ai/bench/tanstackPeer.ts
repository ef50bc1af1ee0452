/**
 * The peer the throughput benches compare with: TanStack AI's `chat()` with the same weather tool
 * (as a TanStack tool) and a scripted adapter that makes the same two model steps. It keeps no
 * thread: every turn starts fresh.
 */
import { chat, toServerSentEventsResponse, type AnyTextAdapter } from '@tanstack/ai'
import type { AnyTool } from '@toolgate/ai'
import { toTanStackTool } from '@toolgate/ai/interop/tanstack'

let tick = 0
const adapter = {
  kind: 'text',
  name: 'scripted',
  model: 'scripted',
  async *chatStream(options: { messages: { role: string }[] }) {
    const runId = `r${tick++}`
    const chunk = (fields: Record<string, unknown>) => ({ ...fields, timestamp: Date.now() })
    yield chunk({ type: 'RUN_STARTED', threadId: 't', runId })
    if (options.messages.at(-1)?.role === 'tool') {
      yield chunk({ type: 'TEXT_MESSAGE_START', messageId: `${runId}m`, role: 'assistant' })
      yield chunk({ type: 'TEXT_MESSAGE_CONTENT', messageId: `${runId}m`, delta: 'It is 5°C.' })
      yield chunk({ type: 'TEXT_MESSAGE_END', messageId: `${runId}m` })
      yield chunk({ type: 'RUN_FINISHED', threadId: 't', runId, finishReason: 'stop' })
    } else {
      yield chunk({ type: 'TOOL_CALL_START', toolCallId: `${runId}c`, toolCallName: 'get_weather', index: 0 })
      yield chunk({ type: 'TOOL_CALL_ARGS', toolCallId: `${runId}c`, delta: '{"city":"Paris"}' })
      yield chunk({ type: 'TOOL_CALL_END', toolCallId: `${runId}c` })
      yield chunk({ type: 'RUN_FINISHED', threadId: 't', runId, finishReason: 'tool_calls' })
    }
  },
  async structuredOutput(): Promise<never> {
    throw new Error('not scripted')
  },
} as unknown as AnyTextAdapter

/** A Fetch handler answering one TanStack turn as SSE, for `weather`'s `get_weather`. */
export function tanstackHandler(weather: AnyTool): (message: string) => Response {
  const tools = [toTanStackTool(weather as never)]
  return (message) => toServerSentEventsResponse(chat({ adapter, messages: [{ role: 'user', content: message }], tools }))
}

/** Throws unless a TanStack turn's SSE text finished with the model's answer. */
export function checkTanstackTurn(text: string): void {
  if (!text.includes('It is 5°C.')) throw new Error(`TanStack turn did not finish: ${text.slice(-200)}`)
}
