import { afterEach, describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { InvalidOptionError, lexicalRanker, TOOL_SYNONYMS, toolDefinition, toolSearch, type AnyTool } from '@toolgate/ai'
import { type ChatModel, createChatHandler, type ModelRequest } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { closeAll, startServer } from '../server/helpers/server.ts'
import { catalogRequests, catalogTools, githubTools, labelledRequests, recallAt } from './toolSearchEval.ts'

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

  it('finds the labelled tools of both labelled sets (floors well below the bench figures, as a regression guard)', async () => {
    const github = toolSearch({ tools: githubTools() })
    expect(labelledRequests().length).toBeGreaterThanOrEqual(100)
    expect((await recallAt(github, labelledRequests(), 5)).recall).toBeGreaterThanOrEqual(0.9)
    const catalog = toolSearch({ tools: catalogTools() })
    expect(catalogTools().length).toBeGreaterThanOrEqual(200)
    expect(catalogRequests().length).toBeGreaterThanOrEqual(150)
    expect((await recallAt(catalog, catalogRequests(), 5)).recall).toBeGreaterThanOrEqual(0.78)
    expect((await recallAt(catalog, catalogRequests(), 10)).recall).toBeGreaterThanOrEqual(0.82)
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

const tool = (name: string, description: string, properties: Record<string, object> = {}): AnyTool =>
  toolDefinition({ name, description, inputSchema: { type: 'object', properties } })

const names = (tools: readonly AnyTool[]) => tools.map((selected) => selected.name)

describe('the built-in ranker', () => {
  const devTools = [
    tool('list_pull_requests', 'Lists pull requests of a repository.', { state: { type: 'string', enum: ['open', 'closed'] } }),
    tool('list_issues', 'Lists issues of a repository.'),
    tool('close_issue', 'Sets the state of an issue to closed.'),
    tool('add_comment', 'Adds a comment to an issue.'),
    tool('getFileContents', 'Returns what a file holds.'),
    tool('repos/releases.latest', 'The newest published release.'),
    tool('git_blame', 'Annotates each line of a file with the commit that last touched it.'),
    tool('list_workflow_runs', 'Lists runs of a GitHub Actions workflow.'),
    tool('deploy', 'Ships a build.', { environment: { type: 'string', description: 'Target cluster' }, strategy: { type: 'string', enum: ['canary', 'blue-green'] } }),
    tool('pto_request', 'Requests days away from work.'),
  ]
  const search = toolSearch({ tools: devTools, limit: 3 })
  const first = async (text: string) => names(await search.select(text))[0]

  it('splits snake_case, camelCase and paths into words', async () => {
    expect(await first('show me the file contents of README.md')).toBe('getFileContents')
    expect(await first('what is the latest release?')).toBe('repos/releases.latest')
    expect(await first('pull requests')).toBe('list_pull_requests')
  })

  it('meets plural and verb forms by stemming', async () => {
    expect(await first('closing an issue')).toBe('close_issue')
    expect(await first('I commented on it')).toBe('add_comment')
    expect(await first('annotating lines')).toBe('git_blame')
  })

  it('knows the vocabulary of developer tools', async () => {
    expect(await first('show my open PRs')).toBe('list_pull_requests')
    expect(await first('any merge requests waiting?')).toBe('list_pull_requests')
    expect(await first('who changed this line?')).toBe('git_blame')
    expect(await first('did the CI run pass?')).toBe('list_workflow_runs')
    // Without the table, the same words find nothing there.
    const bare = toolSearch({ tools: devTools, rank: lexicalRanker({ builtInSynonyms: false }) })
    expect(names(await search.select('who wrote this?'))[0]).toBe('git_blame')
    expect(names(await bare.select('who wrote this?'))).not.toContain('git_blame')
    expect(await first('my PRs')).toBe('list_pull_requests')
    expect(names(await bare.select('my PRs'))).toEqual([])
  })

  it('reads parameter descriptions and enum values', async () => {
    expect(await first('canary rollout to the staging cluster')).toBe('deploy')
  })

  it('takes the app’s own synonyms on top of the built-in ones', async () => {
    expect(names(await search.select('I want a vacation next month'))).not.toContain('pto_request')
    const extended = toolSearch({ tools: devTools, limit: 3, synonyms: { vacation: ['days away', 'pto'], 'time off': ['days away'] } })
    expect(names(await extended.select('I want a vacation next month'))[0]).toBe('pto_request')
    expect(names(await extended.select('book some time off'))[0]).toBe('pto_request')
    expect(names(await extended.select('who changed this line?'))[0]).toBe('git_blame') // the built-in table still applies
    expect(TOOL_SYNONYMS.pr).toContain('pull request')
  })

  it('blends with another scorer through the rank hook', async () => {
    const lexical = lexicalRanker()
    const meaning = (text: string, tools: readonly AnyTool[]) => tools.map((candidate) => (text.includes('holiday') && candidate.name === 'pto_request' ? 1 : 0))
    const hybrid = toolSearch({
      tools: devTools,
      limit: 2,
      rank: async (text, tools) => {
        const words = await lexical(text, tools)
        const top = Math.max(...words, 1e-9)
        return meaning(text, tools).map((score, i) => 0.5 * score + 0.5 * (words[i]! / top))
      },
    })
    expect(names(await hybrid.select('plan my holiday'))).toEqual(['pto_request'])
    expect(names(await hybrid.select('list issues'))[0]).toBe('list_issues')
  })

  it('refuses synonyms that are not phrase → strings, and synonyms beside a rank hook', () => {
    expect(() => toolSearch({ tools: devTools, synonyms: { vacation: 'pto' } as never })).toThrow(InvalidOptionError)
    expect(() => toolSearch({ tools: devTools, synonyms: { vacation: 'pto' } as never })).toThrow('toolSearch: `synonyms["vacation"]` must be an array of strings')
    expect(() => lexicalRanker({ synonyms: [] as never })).toThrow('lexicalRanker: `synonyms` must be an object of phrase → alternatives')
    expect(() => toolSearch({ tools: devTools, rank: () => [], synonyms: {} })).toThrow('toolSearch: `synonyms` applies to the built-in ranker')
  })
})
