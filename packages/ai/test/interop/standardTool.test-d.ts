import { describe, expectTypeOf, it } from 'vitest'
import * as v from 'valibot'
import * as z from 'zod'
import { type } from 'arktype'
import { toolDefinition, type ClientTool, type ServerTool, type ToolContext } from '@toolgate/ai'
import type { StandardTool } from '@toolgate/ai/interop'

type Weather = { tempC: number }

const definition = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: z.object({ tempC: z.number() }),
})
const server = definition.server(({ city }) => ({ tempC: city.length }))
const client = definition.client(({ city }) => ({ tempC: -city.length }))

describe('StandardTool, at compile time', () => {
  it('takes any ServerTool or ClientTool', () => {
    expectTypeOf<ServerTool>().toExtend<StandardTool>()
    expectTypeOf<ClientTool>().toExtend<StandardTool>()
  })

  it('keeps the output type of a built tool, on both sides', () => {
    expectTypeOf(server).toExtend<StandardTool<unknown, Weather>>()
    expectTypeOf(client).toExtend<StandardTool<unknown, Weather>>()
    expectTypeOf(server).not.toExtend<StandardTool<unknown, string>>()
  })

  it('keeps the formatted type, and formatting stays within StandardTool', () => {
    expectTypeOf(server.formatted()).toExtend<StandardTool<unknown, Weather, Weather | { error: string }>>()
    const formatted = server.formatted((result) => (result instanceof Error ? 'failed' : `${result.tempC}°C`))
    expectTypeOf(formatted).toExtend<StandardTool<unknown, Weather, string>>()
    const standard: StandardTool<unknown, Weather> = server
    expectTypeOf(standard.formatted()).toEqualTypeOf<StandardTool<unknown, Weather, Weather | { error: string }>>()
  })

  it('takes a ToolContext as meta', () => {
    expectTypeOf(server).toExtend<StandardTool<unknown, Weather, Weather, ToolContext>>()
  })

  it('lets a tool without input schema be called with no argument', () => {
    const ping: StandardTool<unknown, string> = toolDefinition({ name: 'ping', description: 'Pings' }).server(() => 'pong')
    expectTypeOf(ping.execute).toBeCallableWith()
  })

  it('holds for ArkType and Zod schemas too', () => {
    const ark = toolDefinition({ name: 'a', description: 'A', outputSchema: type({ n: 'number' }) }).server(() => ({ n: 1 }))
    const zod = toolDefinition({ name: 'z', description: 'Z', inputSchema: z.object({ q: z.string() }) }).client(({ q }) => q)
    expectTypeOf(ark).toExtend<StandardTool<unknown, { n: number }>>()
    expectTypeOf(zod).toExtend<StandardTool<unknown, string>>()
  })
})
