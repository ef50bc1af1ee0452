import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'

// Browser builds of @toolgate/ai leave JSON Schema emission and the plain JSON Schema validator out
// (package.json `imports`, `browser` condition). Edge and Workers bundlers resolve `browser` for
// server code too, so server entries must work whatever the conditions. These tests bundle real
// entry code as those bundlers do (tree-shaking, `sideEffects: false` honoured) and run the bundle.

const packageDir = fileURLToPath(new URL('../..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'toolgate-conditions-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const CONDITIONS = {
  browser: ['browser'],
  workerd: ['workerd', 'worker', 'browser'], // wrangler's
  edge: ['edge-light', 'worker', 'browser'], // Next.js's Edge runtime
} as const

let count = 0
async function bundle(code: string, conditions: readonly string[], platform: 'neutral' | 'node' = 'neutral') {
  const file = join(dir, `bundle-${count++}.mjs`)
  const result = await build({
    stdin: { contents: code, resolveDir: packageDir, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform,
    mainFields: ['module', 'main'],
    conditions: ['@toolgate/source', ...conditions],
    write: false,
    logLevel: 'silent',
  })
  const text = result.outputFiles[0]!.text
  writeFileSync(file, text)
  return { text, module: await import(pathToFileURL(file).href) }
}

const clientApp = `
import * as v from 'valibot'
import { jsonSchema, toolDefinition } from '@toolgate/ai'
import { createChatClient } from '@toolgate/ai/client'
const location = toolDefinition({ name: 'get_location', description: 'Where', inputSchema: v.object({ precise: v.boolean() }) })
const plainSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
const plain = toolDefinition({ name: 'copy', description: 'Copy', inputSchema: plainSchema }).client(() => true)
const wrapped = toolDefinition({ name: 'copy', description: 'Copy', inputSchema: jsonSchema(plainSchema) }).client(() => true)
export const client = createChatClient({ endpoint: '/chat', tools: [plain] })
export const emit = () => location.inputSchema['~standard'].jsonSchema.input({ target: 'draft-2020-12' })
export const validatePlain = (value) => plain.execute(value)
export const validateWrapped = (value) => wrapped.execute(value)
`

const serverApp = `
import * as v from 'valibot'
import { toolDefinition, toolJsonSchema } from '@toolgate/ai'
import { createChatHandler } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'
const weather = toolDefinition({ name: 'get_weather', description: 'Weather', inputSchema: v.object({ city: v.string() }) })
  .server(({ city }) => ({ city, tempC: 20 }))
const plain = toolDefinition({
  name: 'note', description: 'Note',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
}).server(({ text }) => text)
// Emits every tool's JSON Schema now: this threw "this is a browser build" under workerd's conditions.
export const handler = createChatHandler({ model: scriptedModel([{ when: 'x', reply: 'y' }]), tools: [weather, plain] })
export const emit = () => toolJsonSchema(weather)
export const viaStandardSchema = () => weather.inputSchema['~standard'].jsonSchema.input({ target: 'draft-07' })
export const validatePlain = (value) => plain.execute(value)
`

describe('a browser bundle of the client', () => {
  it('leaves emission and the plain JSON Schema validator out, and says what to do instead', async () => {
    const { text, module } = await bundle(clientApp, CONDITIONS.browser)
    expect(text).not.toContain('@valibot/to-json-schema')
    expect(text).not.toContain('registerServerSchemaSupport')
    expect(module.emit).toThrow(/input of tool "get_location": this is a browser build.*emit JSON Schema on the server/)
    await expect(module.validatePlain({ text: 'a' })).rejects.toThrow(/Wrap the plain JSON Schema with jsonSchema\(\)/)
    expect(await module.validateWrapped({ text: 'a' })).toBe(true)
    await expect(module.validateWrapped({})).rejects.toThrow('- text: Required')
  })
})

describe.each(Object.entries(CONDITIONS))('the server entry bundled with %s conditions', (_name, conditions) => {
  it('emits JSON Schema and validates plain JSON Schema', async () => {
    const { module } = await bundle(serverApp, conditions)
    expect(typeof module.handler).toBe('function')
    expect(module.emit()).toMatchObject({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
    expect(module.viaStandardSchema()).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#' })
    expect(await module.validatePlain({ text: 'hi' })).toBe('hi')
    await expect(module.validatePlain({ text: 1 })).rejects.toThrow('- text: ')
  })
})

describe.each(['providers', 'interop/mcp', 'interop/ai-sdk', 'interop/tanstack'])('@toolgate/ai/%s bundled with workerd conditions', (entry) => {
  it('carries the real JSON Schema emitter and validator', async () => {
    const { text } = await bundle(`export * from '@toolgate/ai/${entry}'`, CONDITIONS.workerd)
    expect(text).toContain('registerServerSchemaSupport')
  })
})

// A provider's request: `node:http` with a keep-alive agent on Node (`#post-events`), `fetch` on
// every runtime that has no `node:http` worth using. An Edge or Workers build must never import it.
const providerApp = `
import { openAIChatModel } from '@toolgate/ai/providers'
export const model = openAIChatModel({ model: 'gpt-test', apiKey: 'sk-test', baseURL: 'https://llm.test/v1', maxRetries: 0 })
`

describe.each([...Object.entries(CONDITIONS), ['bun', ['bun', 'node']], ['deno', ['deno', 'node']]] as const)('a provider adapter bundled with %s conditions', (_name, conditions) => {
  it('calls its provider with fetch and imports no node:http', async () => {
    const { text, module } = await bundle(providerApp, conditions)
    expect(text).not.toMatch(/node:https?['"]/)
    const seen: string[] = []
    const original = globalThis.fetch
    globalThis.fetch = (async (input: string) => {
      seen.push(String(input))
      const body = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
    }) as typeof fetch
    try {
      const chunks: { type: string; delta?: string }[] = []
      for await (const chunk of module.model.stream({ messages: [{ role: 'user', id: 'u', content: 'hi' }], tools: [], signal: new AbortController().signal })) chunks.push(chunk)
      expect(chunks).toEqual([{ type: 'text-delta', delta: 'Hi' }, { type: 'finish', reason: 'stop' }])
      expect(seen).toEqual(['https://llm.test/v1/chat/completions'])
    } finally {
      globalThis.fetch = original
    }
  })
})

describe('a provider adapter bundled for Node', () => {
  it('carries the node:http client (the fetch path stays, for an app that gives its own fetch)', async () => {
    const { text } = await bundle(providerApp, ['node'], 'node')
    expect(text).toMatch(/from ['"]node:http['"]/)
    expect(text).toContain('keepAlive: true')
  })
})
