import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { InvalidOptionError, toolDefinition, toolSearch } from '@toolgate/ai'
import { createChatHandler, scriptedModel, type ChatModel, type ModelRequest } from '@toolgate/ai/server'
import { closeAll, startServer } from '../server/helpers/server.ts'
import { githubTools, labelledRequests, recallAt } from './toolSearchEval.ts'

afterEach(closeAll)

const weather = toolDefinition({ name: 'get_weather', description: 'Current weather for a city', inputSchema: v.object({ city: v.string() }) })
const email = toolDefinition({ name: 'send_email', description: 'Sends an email message', inputSchema: v.object({ to: v.string(), subject: v.string() }) })
const calendar = toolDefinition({ name: 'list_events', description: 'Lists calendar events', inputSchema: v.object({ day: v.string() }) })

describe('toolSearch', () => {
  it('selects the tools that fit the text, best first, by name, description and parameter names', async () => {
    const search = toolSearch({ tools: [weather, email, calendar], limit: 2 })
    expect((await search.select('What is the weather in Oslo?')).map((tool) => tool.name)).toEqual(['get_weather'])
    expect((await search.select('email the subject line to Bob')).map((tool) => tool.name)).toEqual(['send_email'])
    expect((await search.select('which events are on my calendar, and the weather?')).map((tool) => tool.name)).toEqual(['list_events', 'get_weather'])
    expect(await search.select('')).toEqual([])
    expect(await search.select('events weather email', { limit: 1 })).toHaveLength(1)
  })

  it('takes a rank hook (embeddings, a reranker) in place of BM25', async () => {
    const seen: string[] = []
    const search = toolSearch({ tools: [weather, email, calendar], rank: (text, tools) => (seen.push(text), tools.map((tool) => (tool.name === 'send_email' ? 0.9 : tool.name === 'list_events' ? 0.4 : 0))) })
    expect((await search.select('anything')).map((tool) => tool.name)).toEqual(['send_email', 'list_events'])
    expect(seen).toEqual(['anything'])
    const broken = toolSearch({ tools: [weather], rank: () => [] })
    await expect(broken.select('x')).rejects.toThrow('toolSearch: `rank` must return one score per tool (1), got 0')
  })

  it('checks its options', () => {
    expect(() => toolSearch({ tools: [weather], limit: 0 })).toThrow(InvalidOptionError)
    expect(() => toolSearch({ tools: 'x' as never })).toThrow('toolSearch: `tools` must be an array of tools')
  })

  it('finds the labelled tools of GitHub MCP requests (recall@5 and @10 stay at least where they were measured)', async () => {
    const search = toolSearch({ tools: githubTools() })
    const requests = labelledRequests()
    expect(requests.length).toBeGreaterThanOrEqual(100)
    expect((await recallAt(search, requests, 5)).recall).toBeGreaterThanOrEqual(0.85)
    expect((await recallAt(search, requests, 10)).recall).toBeGreaterThanOrEqual(0.89)
  })

  it('declares per model call only the selected tools and those already called, and runs any tool of the catalog', async () => {
    const requests: ModelRequest[] = []
    const inner = scriptedModel([
      { when: /weather/, call: () => ({ tool: 'get_weather', input: { city: 'Oslo' } }), then: () => 'Sunny.' },
      { when: /mail/, call: () => ({ tool: 'send_email', input: { to: 'bob@acme.test', subject: 'Hi' } }), then: () => 'Sent.' },
    ])
    const model: ChatModel = { stream: (request) => (requests.push(request), inner.stream(request)) }
    const tools = [weather.server(() => ({ tempC: 21 })), email.server(() => ({ sent: true })), calendar.server(() => [])] as const
    const server = await startServer({ model, tools: toolSearch({ tools, limit: 1 }) })
    const first = await server.send('how is the weather?')
    expect(first.results[0]).toMatchObject({ content: '{"tempC":21}' })
    expect(requests.map((request) => request.tools.map((tool) => tool.name))).toEqual([['get_weather'], ['get_weather']])

    requests.length = 0
    const second = await server.send('now email Bob', first.threadId)
    expect(second.results[0]).toMatchObject({ content: '{"sent":true}' })
    // The email tool is picked for the message; the weather tool stays: the thread holds its call.
    expect(requests[0]!.tools.map((tool) => tool.name)).toEqual(['send_email', 'get_weather'])
  })

  it('is accepted by createChatHandler in place of a tool list, types included', () => {
    const model = scriptedModel([])
    const needsKey = toolDefinition({ name: 'crm', description: 'CRM', contextSchema: v.object({ key: v.string() }) }).server(() => 'ok')
    createChatHandler({ model, tools: toolSearch({ tools: [needsKey] }), context: { key: 'k' } })
    // @ts-expect-error the search's tools need a context
    createChatHandler({ model, tools: toolSearch({ tools: [needsKey] }) })
  })
})
