/**
 * The "needed + thread" floor (issue 41): what a chat turn of the workload cannot do without, in
 * plain code on `node:http`, to price Toolgate's turn against. Per turn: parse the JSON body; two
 * model streams read by async iteration (the workload's own model, the same object Toolgate runs);
 * Valibot on the tool's input and output; one AbortController; each event `JSON.stringify`ed into an
 * SSE frame with an `id`; one `res.write` per turn of the event loop; and three awaited
 * compare-and-set commits to a thread in memory (the claim, the running mark, the release).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import * as v from 'valibot'
import type { ChatModel, ModelChunk, ModelRequest } from '@toolgate/ai/server'
import type { ThreadMessage } from '@toolgate/ai/protocol'

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' }

interface Thread {
  version: number
  messages: ThreadMessage[]
}

/** A thread store at its least: a head version, compared and set, and an append-only list. */
class MemoryThreads {
  readonly #threads = new Map<string, Thread>()

  async commit(id: string, expected: number, append: readonly ThreadMessage[]): Promise<number> {
    const thread = this.#threads.get(id) ?? { version: 0, messages: [] }
    if (thread.version !== expected) throw new Error('409: the thread moved')
    thread.messages.push(...append)
    thread.version++
    this.#threads.set(id, thread)
    return thread.version
  }

}

interface FloorTool {
  readonly name: string
  readonly inputSchema: v.GenericSchema
  readonly outputSchema: v.GenericSchema
  readonly run: (input: never) => unknown
}

let sequence = 0
const nextId = (prefix: string) => `${prefix}_${(++sequence).toString(36)}`

/** A `node:http` listener answering each POST with the workload's turn, doing only the needed work. */
export function neededFloor(model: ChatModel, tool: FloorTool) {
  const threads = new MemoryThreads()
  const declared = [{ name: tool.name, description: '', inputSchema: { type: 'object' } }]
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (data: string) => (body += data))
    req.on('end', () => void turn(JSON.parse(body) as { message: string }, res))
  }

  async function turn({ message }: { message: string }, res: ServerResponse) {
    const threadId = nextId('thread')
    const runId = nextId('run')
    const abort = new AbortController()
    let seq = 0
    // One write per turn of the event loop: the frames of a turn are joined and written together.
    let pending = ''
    let scheduled = false
    const flush = () => {
      scheduled = false
      if (pending !== '') res.write(pending)
      pending = ''
    }
    const send = (event: Record<string, unknown>) => {
      pending += `id: ${runId}:${++seq}\ndata: ${JSON.stringify(event)}\n\n`
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    }
    const user: ThreadMessage = { role: 'user', id: nextId('msg'), content: message }
    let version = await threads.commit(threadId, 0, [user]) // the claim
    res.writeHead(200, SSE_HEADERS)
    send({ type: 'RUN_STARTED', threadId, runId })
    const messages: ThreadMessage[] = [user]
    let stored = messages.length
    for (let step = 0; step < 2; step++) {
      const request: ModelRequest = { messages, tools: declared as never, signal: abort.signal }
      const calls = new Map<string, { name: string; args: string }>()
      let text = ''
      let textId: string | undefined
      for await (const chunk of model.stream(request) as AsyncIterable<ModelChunk>) {
        if (chunk.type === 'text-delta') {
          if (textId === undefined) send({ type: 'TEXT_MESSAGE_START', messageId: (textId = nextId('msg')), role: 'assistant' })
          text += chunk.delta
          send({ type: 'TEXT_MESSAGE_CONTENT', messageId: textId, delta: chunk.delta })
        } else if (chunk.type === 'tool-call-start') {
          calls.set(chunk.toolCallId, { name: chunk.toolName, args: '' })
          send({ type: 'TOOL_CALL_START', toolCallId: chunk.toolCallId, toolCallName: chunk.toolName })
        } else if (chunk.type === 'tool-call-delta') {
          calls.get(chunk.toolCallId)!.args += chunk.delta
          send({ type: 'TOOL_CALL_ARGS', toolCallId: chunk.toolCallId, delta: chunk.delta })
        } else if (chunk.type === 'tool-call-end') send({ type: 'TOOL_CALL_END', toolCallId: chunk.toolCallId })
      }
      if (textId !== undefined) send({ type: 'TEXT_MESSAGE_END', messageId: textId })
      const assistant: ThreadMessage = {
        role: 'assistant',
        id: textId ?? nextId('msg'),
        content: text,
        toolCalls: [...calls].map(([id, call]) => ({ id, name: call.name, arguments: call.args })),
      } as ThreadMessage
      messages.push(assistant)
      if (calls.size === 0) break
      version = await threads.commit(threadId, version, messages.slice(stored)) // the running mark
      stored = messages.length
      for (const [toolCallId, call] of calls) {
        const input = v.parse(tool.inputSchema, JSON.parse(call.args))
        const output = v.parse(tool.outputSchema, await tool.run(input as never))
        const content = JSON.stringify(output)
        // Stored as a thread keeps a result (its tool, status and output): the model reads it as Toolgate's
        // run gives it, so both turns answer the same text ("It is 5°C.", three deltas).
        const result = { role: 'tool', id: nextId('msg'), toolCallId, toolName: call.name, content, status: 'success', output } as ThreadMessage
        messages.push(result)
        send({ type: 'TOOL_CALL_RESULT', messageId: result.id, toolCallId, content, role: 'tool' })
      }
    }
    await threads.commit(threadId, version, messages.slice(stored)) // the release
    send({ type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'success' } })
    setImmediate(() => {
      flush()
      res.end()
    })
  }
}
