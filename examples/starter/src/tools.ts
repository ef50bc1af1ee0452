import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'

// Imported by the server (which runs the tools) and by the browser (which types and shows them).

export const getWeather = toolDefinition({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: v.object({ city: v.string() }),
  outputSchema: v.object({ city: v.string(), tempC: v.number() }),
})

export const sendEmail = toolDefinition({
  name: 'send_email',
  description: 'Sends an email on behalf of the user',
  inputSchema: v.object({ to: v.pipe(v.string(), v.email()), subject: v.string(), body: v.string() }),
  outputSchema: v.object({ sent: v.boolean() }),
  // A human approves mail to anyone outside the company; the reason is shown with the request.
  needsApproval: (input) => (input.to.endsWith('@acme.test') ? false : { reason: `${input.to} is outside the company` }),
})
