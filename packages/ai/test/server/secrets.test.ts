import { afterEach, describe, expect, it, vi } from 'vitest'
import * as v from 'valibot'
import { toolDefinition, ToolError } from '@toolgate/ai'
import { type ChatModel, type ErrorScope, type ModelRequest } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { weatherDef } from './fixtures.ts'
import { closeAll, startServer } from './helpers/server.ts'

afterEach(closeAll)

// Adversarial: a tool's or a policy's exception may carry a secret. The browser, the stored
// thread and the model must never see it; the server's onError must get it in full.

const SECRET = 'db password=hunter2 at /srv/secret.ts'

const weatherRule = {
  when: /weather in (\w+)/i,
  call: (m: RegExpMatchArray) => ({ tool: 'get_weather', input: { city: m[1] } }),
  then: ([r]: any[]) => (r.ok ? 'fine' : `That failed: ${r.content}`),
}

/** Records every request the model receives, so a test can see what the model was told. */
function recording(model: ChatModel): { model: ChatModel; requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  return { requests, model: { ...model, stream: (request) => (requests.push(request), model.stream(request)) } }
}

describe('secrets in errors', () => {
  it('keeps a thrown error out of the stream, the thread and the model, and hands it to onError', async () => {
    const thrown = new Error(SECRET)
    const tool = weatherDef.server(async () => {
      throw thrown
    })
    const onError = vi.fn<(error: unknown, scope: ErrorScope) => void>()
    const { model, requests } = recording(scriptedModel([weatherRule]))
    const server = await startServer({ model, tools: [tool], onError })
    const turn = await server.send('weather in Paris')

    expect(turn.results[0]!.content).toBe('Tool "get_weather" failed')
    expect(turn.text).toBe('That failed: Tool "get_weather" failed')
    expect(JSON.stringify(turn.events)).not.toContain('hunter2')
    expect(JSON.stringify(await server.get(turn.threadId))).not.toContain('hunter2')
    expect(JSON.stringify(requests)).not.toContain('hunter2')

    expect(onError).toHaveBeenCalledTimes(1)
    const [error, scope] = onError.mock.calls[0]!
    expect(error).toBe(thrown)
    expect(scope).toEqual({
      threadId: turn.threadId,
      runId: turn.events.find((e) => e.type === 'RUN_STARTED')!.runId,
      source: 'tool',
      toolCallId: turn.results[0]!.toolCallId,
      toolName: 'get_weather',
    })
  })

  it('passes a ToolError through: its message is written for the model', async () => {
    const tool = weatherDef.server(async () => {
      throw new ToolError('No station reports for Paris today; try a nearby city')
    })
    const onError = vi.fn()
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [tool], onError })
    const turn = await server.send('weather in Paris')
    expect(turn.results[0]!.content).toBe('Tool "get_weather" failed: No station reports for Paris today; try a nearby city')
    expect(onError).not.toHaveBeenCalled()
  })

  it('lets the app word unexpected errors itself, and falls back when its mapping throws', async () => {
    class RateLimited extends Error {}
    const tool = weatherDef.server(async ({ city }) => {
      if (city === 'Paris') throw new RateLimited(SECRET)
      throw new Error(SECRET)
    })
    const toolErrorMessage = (error: unknown, call: { toolName: string }) => {
      if (error instanceof RateLimited) return `${call.toolName} is rate limited; wait a minute`
      throw new Error('mapping broke')
    }
    const onError = vi.fn()
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [tool], toolErrorMessage, onError })
    expect((await server.send('weather in Paris')).results[0]!.content).toBe('get_weather is rate limited; wait a minute')
    expect((await server.send('weather in Oslo')).results[0]!.content).toBe('Tool "get_weather" failed')
    // The tool's error and the mapping's own error both reach the server.
    expect(onError.mock.calls.map(([error]) => (error as Error).message)).toEqual([SECRET, SECRET, 'mapping broke'])
  })

  it('fails closed on a throwing approval policy, with a generic reason and the error reported', async () => {
    let ran = 0
    const thrown = new Error(SECRET)
    const guarded = toolDefinition({
      name: 'delete_repo',
      description: 'Deletes a repository',
      inputSchema: v.object({ repo: v.string() }),
      needsApproval: () => {
        throw thrown
      },
    }).server(async () => {
      ran++
      return { deleted: true }
    })
    const onError = vi.fn<(error: unknown, scope: ErrorScope) => void>()
    const model = scriptedModel([{ when: 'delete', call: () => ({ tool: 'delete_repo', input: { repo: 'acme/site' } }), then: () => 'done' }])
    const server = await startServer({ model, tools: [guarded], onError })
    const turn = await server.send('delete it')

    expect(ran).toBe(0)
    expect(turn.interrupts).toHaveLength(1)
    expect(turn.interrupts[0]!.message).toBe('The approval policy could not decide; approve only if you are sure.')
    expect(JSON.stringify(turn.events)).not.toContain('hunter2')
    expect(JSON.stringify(await server.get(turn.threadId))).not.toContain('hunter2')
    expect(onError.mock.calls).toEqual([[thrown, expect.objectContaining({ source: 'approval-policy', toolName: 'delete_repo', threadId: turn.threadId })]])
  })

  it('does not leak what a throwing output schema says', async () => {
    const leaky = toolDefinition({
      name: 'get_weather',
      description: 'Current weather in a city',
      inputSchema: v.object({ city: v.string() }),
      outputSchema: {
        '~standard': {
          version: 1,
          vendor: 'test',
          validate: () => {
            throw new Error(SECRET)
          },
        },
      },
    }).server(async () => ({ tempC: 3 }))
    const onError = vi.fn()
    const server = await startServer({ model: scriptedModel([weatherRule]), tools: [leaky], onError })
    const turn = await server.send('weather in Paris')
    expect(JSON.stringify(turn.events)).not.toContain('hunter2')
    expect(turn.results[0]!.metadata.status).toBe('error')
    expect(onError).toHaveBeenCalledTimes(1)
  })
})
