/**
 * The peer the throughput benches compare with: TanStack AI's `chat()` with the same weather tool
 * (as a TanStack tool) and a scripted adapter that streams the same model steps as the workload's
 * model (bench/workload.ts). It keeps no thread: every turn starts fresh.
 */
import { chat, toServerSentEventsResponse, type AnyTextAdapter } from '@tanstack/ai'
import type { AnyTool } from '@toolgate/ai'
import { toTanStackTool } from '@toolgate/ai/interop/tanstack'
import { STREAMED_ARG_DELTAS, STREAMED_TEXT_DELTAS, argDeltas, nextLoopTurn, textDeltas, type Workload } from './workload.ts'

let tick = 0

export function adapterFor(workload: Workload): AnyTextAdapter {
  return {
    kind: 'text',
    name: 'scripted',
    model: 'scripted',
    async *chatStream(options: { messages: { role: string }[] }) {
      const runId = `r${tick++}`
      const chunk = (fields: Record<string, unknown>) => ({ ...fields, timestamp: Date.now() })
      const afterTool = options.messages.at(-1)?.role === 'tool'
      yield chunk({ type: 'RUN_STARTED', threadId: 't', runId })
      if (afterTool || workload === 'text' || workload === 'hello') {
        yield chunk({ type: 'TEXT_MESSAGE_START', messageId: `${runId}m`, role: 'assistant' })
        if (workload === 'text') {
          for (const delta of textDeltas(STREAMED_TEXT_DELTAS)) {
            await nextLoopTurn()
            yield chunk({ type: 'TEXT_MESSAGE_CONTENT', messageId: `${runId}m`, delta })
          }
        } else {
          yield chunk({ type: 'TEXT_MESSAGE_CONTENT', messageId: `${runId}m`, delta: workload === 'args' ? 'Done.' : workload === 'hello' ? 'Hello.' : 'It is 5°C.' })
        }
        yield chunk({ type: 'TEXT_MESSAGE_END', messageId: `${runId}m` })
        yield chunk({ type: 'RUN_FINISHED', threadId: 't', runId, finishReason: 'stop' })
        return
      }
      yield chunk({ type: 'TOOL_CALL_START', toolCallId: `${runId}c`, toolCallName: 'get_weather', index: 0 })
      if (workload === 'args') {
        for (const delta of argDeltas(STREAMED_ARG_DELTAS)) {
          await nextLoopTurn()
          yield chunk({ type: 'TOOL_CALL_ARGS', toolCallId: `${runId}c`, delta })
        }
      } else {
        yield chunk({ type: 'TOOL_CALL_ARGS', toolCallId: `${runId}c`, delta: '{"city":"Paris"}' })
      }
      yield chunk({ type: 'TOOL_CALL_END', toolCallId: `${runId}c` })
      yield chunk({ type: 'RUN_FINISHED', threadId: 't', runId, finishReason: 'tool_calls' })
    },
    async structuredOutput(): Promise<never> {
      throw new Error('not scripted')
    },
  } as unknown as AnyTextAdapter
}

/** A Fetch handler answering one TanStack turn of `workload` as SSE, for `weather`'s `get_weather` (its scripted adapter, or the one given: a real provider's). */
export function tanstackHandler(weather: AnyTool, workload: Workload = 'weather', adapter: AnyTextAdapter = adapterFor(workload)): (message: string) => Response {
  const tools = [toTanStackTool(weather as never)]
  return (message) => toServerSentEventsResponse(chat({ adapter, messages: [{ role: 'user', content: message }], tools }))
}

/** Throws unless a TanStack turn's SSE text finished with the model's answer. */
export function checkTanstackTurn(text: string, workload: Workload = 'weather'): void {
  const ending = { weather: 'It is 5°C.', text: '"RUN_FINISHED"', args: 'Done.', hello: 'Hello.', hold: 'Hold on.' }[workload]
  if (!text.includes(ending) || !text.includes('"RUN_FINISHED"')) throw new Error(`TanStack turn did not finish: ${text.slice(-200)}`)
}
