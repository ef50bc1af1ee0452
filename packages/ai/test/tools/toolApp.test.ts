import { describe, expect, it } from 'vitest'
import { ToolDefinitionError, toolDefinition } from '@toolgate/ai'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'

const model = scriptedModel([])

describe('toolDefinition({ app })', () => {
  it('carries the app as given to both sides, reading nothing until a host asks', () => {
    let reads = 0
    const app = {
      uri: 'ui://weather/view.html',
      html: () => {
        reads++
        return '<p>sunny</p>'
      },
      csp: { connectDomains: ['https://api.example.com'] },
    } as const
    const weather = toolDefinition({ name: 'weather', description: 'Shows the weather', app })
    expect(weather.server(() => 'ok').app).toBe(app)
    expect(weather.client(() => 'ok').app).toBe(app)
    createChatHandler({ model, tools: [weather.server(() => 'ok')] })
    expect(reads).toBe(0)
  })

  it('is checked when the server registers the tool: a ui:// uri, html or read(), a known visibility', () => {
    const tool = (app: unknown) => toolDefinition({ name: 'x', description: 'x', app: app as never }).server(() => 'ok')
    expect(() => createChatHandler({ model, tools: [tool({ uri: 'https://x', html: '' })] })).toThrow(ToolDefinitionError)
    expect(() => createChatHandler({ model, tools: [tool({ uri: 'ui://x', html: 3 })] })).toThrow(/html/)
    expect(() => createChatHandler({ model, tools: [tool({ uri: 'ui://x', html: '', visibility: ['user'] })] })).toThrow(/visibility/)
    expect(() => createChatHandler({ model, tools: [tool({ uri: 'ui://x', html: '' })] })).not.toThrow()
  })

  it('leaves a tool without an app without one', () => {
    expect(toolDefinition({ name: 'y', description: 'y' }).app).toBeUndefined()
  })
})
