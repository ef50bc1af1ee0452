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
async function bundle(code: string, conditions: readonly string[]) {
  const file = join(dir, `bundle-${count++}.mjs`)
  const result = await build({
    stdin: { contents: code, resolveDir: packageDir, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
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
