import { describe, expect, it } from 'vitest'
import { ToolDefinitionError, toolDefinition } from '@toolgate/ai'

describe('toolDefinition({ app })', () => {
  it('carries the app to both sides and reads its resource on demand', async () => {
    let reads = 0
    const weather = toolDefinition({
      name: 'weather',
      description: 'Shows the weather',
      app: {
        uri: 'ui://weather/view.html',
        html: () => {
          reads++
          return '<p>sunny</p>'
        },
        csp: { connectDomains: ['https://api.example.com'] },
        prefersBorder: true,
      },
    })
    const server = weather.server(() => 'ok')
    expect(reads).toBe(0)
    expect(server.app?.uri).toBe('ui://weather/view.html')
    expect(server.app?.visibility).toEqual(['model', 'app'])
    expect(await server.app?.read()).toEqual({ html: '<p>sunny</p>', csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true })
    expect(reads).toBe(1)
    expect(weather.client(() => 'ok').app?.uri).toBe('ui://weather/view.html')
  })

  it('refuses an app without a ui:// uri, without html, or with an unknown visibility', () => {
    const base = { name: 'x', description: 'x' }
    expect(() => toolDefinition({ ...base, app: { uri: 'https://x' as never, html: '' } })).toThrow(ToolDefinitionError)
    expect(() => toolDefinition({ ...base, app: { uri: 'ui://x', html: 3 as never } })).toThrow(ToolDefinitionError)
    expect(() => toolDefinition({ ...base, app: { uri: 'ui://x', html: '', visibility: ['user' as never] } })).toThrow(ToolDefinitionError)
  })

  it('leaves a tool without an app without one', () => {
    expect(toolDefinition({ name: 'y', description: 'y' }).app).toBeUndefined()
  })
})
