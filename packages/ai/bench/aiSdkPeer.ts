/**
 * The AI SDK 7 peer (`ai7`, the root devDependency alias of `ai@^7`): `streamText` with the same
 * weather tool (its Standard Schemas, as Toolgate's tool carries them) and a scripted language
 * model streaming the same model steps as the workload's model (bench/workload.ts), answered with
 * `pipeUIMessageStreamToResponse` on the Node response. Like TanStack's `chat()`, it keeps no thread.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isStepCount, jsonSchema, streamText, tool, type LanguageModel } from 'ai7'
import * as v from 'valibot'
import { STREAMED_ARG_DELTAS, STREAMED_TEXT_DELTAS, argDeltas, nextLoopTurn, textDeltas, type Workload } from './workload.ts'

let tick = 0
const usage = { inputTokens: { total: 11, noCache: 11, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 7, text: 7, reasoning: undefined } }

/** A LanguageModelV4 that streams the workload's steps: a tool call first (weather, args), then the answer. */
export function scriptedLanguageModel(workload: Workload, onCall?: (options: unknown) => void): LanguageModel {
  return {
    specificationVersion: 'v4',
    provider: 'scripted',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate() {
      throw new Error('not scripted')
    },
    async doStream(options: { prompt: { role: string }[] }) {
      onCall?.(options)
      const id = `r${tick++}`
      const afterTool = options.prompt.at(-1)?.role === 'tool'
      const stream = new ReadableStream({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] })
          if (afterTool || workload === 'text' || workload === 'hello') {
            controller.enqueue({ type: 'text-start', id })
            if (workload === 'text') {
              for (const delta of textDeltas(STREAMED_TEXT_DELTAS)) {
                await nextLoopTurn()
                controller.enqueue({ type: 'text-delta', id, delta })
              }
            } else {
              const answer = workload === 'args' ? 'Done.' : workload === 'hello' ? 'Hello.' : 'It is 5°C.'
              controller.enqueue({ type: 'text-delta', id, delta: answer })
            }
            controller.enqueue({ type: 'text-end', id })
            controller.enqueue({ type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } })
            controller.close()
            return
          }
          const callId = `${id}c`
          const input = workload === 'args' ? argDeltas(STREAMED_ARG_DELTAS) : ['{"city":"Paris"}']
          controller.enqueue({ type: 'tool-input-start', id: callId, toolName: 'get_weather' })
          for (const delta of input) {
            if (workload === 'args') await nextLoopTurn()
            controller.enqueue({ type: 'tool-input-delta', id: callId, delta })
          }
          controller.enqueue({ type: 'tool-input-end', id: callId })
          controller.enqueue({ type: 'tool-call', toolCallId: callId, toolName: 'get_weather', input: input.join('') })
          controller.enqueue({ type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } })
          controller.close()
        },
      })
      return { stream }
    },
  } as unknown as LanguageModel
}

/** A `node:http` listener answering each POST `{ message }` with one AI SDK turn of `workload` as its UI message stream. */
export function aiSdkHandler(workload: Workload = 'weather', model = scriptedLanguageModel(workload)) {
  // The weather tool of bench/workload.ts as an AI SDK user writes it with Valibot: JSON Schema for
  // the model, Valibot's `safeParse` on input and output (what `@ai-sdk/valibot` does). Toolgate's
  // own schemas are not passed: they emit frozen JSON Schema, which `ai@7` mutates (it adds
  // `additionalProperties`), and Valibot's own schemas carry no JSON Schema converter.
  const tools = {
    get_weather: tool({
      description: 'Current weather in a city',
      inputSchema: valibot(v.object({ city: v.string() }), { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
      outputSchema: valibot(v.object({ tempC: v.number() }), { type: 'object', properties: { tempC: { type: 'number' } }, required: ['tempC'] }),
      execute: async ({ city }) => ({ tempC: city.length }),
    }),
  }
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (data: string) => (body += data))
    req.on('end', () => {
      const { message } = JSON.parse(body) as { message: string }
      const result = streamText({ model, tools, stopWhen: isStepCount(2), messages: [{ role: 'user', content: message }] })
      result.pipeUIMessageStreamToResponse(res)
    })
  }
}

function valibot<T extends v.GenericSchema>(schema: T, json: Record<string, unknown>) {
  return jsonSchema<v.InferOutput<T>>(json, {
    validate: (value) => {
      const result = v.safeParse(schema, value)
      return result.success ? { success: true, value: result.output } : { success: false, error: new Error(result.issues[0].message) }
    },
  })
}

/** Throws unless an AI SDK turn's UI message stream finished with the model's answer. */
export function checkAiSdkTurn(text: string, workload: Workload = 'weather'): void {
  const ending = { weather: 'It is 5°C.', text: '"finish"', args: 'Done.', hello: 'Hello.', hold: 'Hold on.' }[workload]
  const ranTool = workload === 'weather' || workload === 'args'
  if (!text.includes(ending) || !text.includes('"type":"finish"') || (ranTool && !text.includes('"tool-output-available"'))) {
    throw new Error(`AI SDK turn did not finish: ${text.slice(-300)}`)
  }
}
