import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'

/** Tools shared by the server tests. */
export const weatherDef = toolDefinition({
  name: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(2)) }),
  outputSchema: v.object({ city: v.string(), tempC: v.number() }),
})

export const TEMPS: Record<string, number> = { Paris: 18, Oslo: 4, Rome: 24, Lima: 19 }

export const weatherTool = weatherDef.server(async ({ city }) => ({ city, tempC: TEMPS[city] ?? 10 }))

export const transferDef = toolDefinition({
  name: 'transfer_money',
  description: 'Sends money to someone',
  inputSchema: v.object({ to: v.string(), amount: v.pipe(v.number(), v.minValue(1)) }),
  outputSchema: v.object({ receipt: v.string() }),
  needsApproval: (input) => (input.amount > 100 ? { reason: `Sends ${input.amount} EUR to ${input.to}` } : false),
})

/** A browser tool: declared to the model, run by the client. */
export const locationDef = toolDefinition({
  name: 'get_location',
  description: "The user's location, from the browser",
  outputSchema: v.object({ city: v.string() }),
})

/** A browser tool a human approves first. */
export const shareDef = toolDefinition({
  name: 'share_file',
  description: 'Shares a file from the browser',
  inputSchema: v.object({ file: v.string(), with: v.string() }),
  outputSchema: v.object({ link: v.string() }),
  needsApproval: true,
})
