/**
 * What the throughput benches share: the one server tool every turn runs (pure and fast, so the
 * runtime is what is measured), the scripted model of a weather turn, and the measuring loop.
 */
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { scriptedModel } from '@toolgate/ai/server'

export const weather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ tempC: v.number() }),
}).server(({ city }) => ({ tempC: city.length }))

/** "weather in X": one call of `weather`, then an answer from its output (two model steps). */
export const weatherModel = scriptedModel(
  [{ when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }), then: ([r]) => (r.tool === 'get_weather' && r.ok ? `It is ${r.output.tempC}°C.` : r.content) }],
  { tools: [weather] },
)

export interface MeasureLimits {
  readonly warmup: number
  readonly maxTurns: number
  readonly budgetMs: number
}

/** Runs `turn` from `concurrency` workers after a warm-up, until `maxTurns` or `budgetMs`: turns done, time, turns per second. */
export async function measure(turn: () => Promise<unknown>, concurrency: number, limits: MeasureLimits) {
  for (let i = 0; i < limits.warmup; i++) await turn()
  let done = 0
  const start = performance.now()
  const worker = async () => {
    while (done < limits.maxTurns && performance.now() - start < limits.budgetMs) {
      await turn()
      done++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const ms = performance.now() - start
  return { done, ms, perSecond: (done / ms) * 1000 }
}
