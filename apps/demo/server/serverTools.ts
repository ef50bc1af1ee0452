import { deleteFiles, getBrowserInfo, copyToClipboard, getWeather, sendEmail, setTheme } from '../src/tools.ts'
import { ToolError } from '@toolgate/ai'

// Canned data: the demo runs with no network. A real app would call a weather API here.
const WEATHER: Record<string, { tempC: number; conditions: string }> = {
  paris: { tempC: 18, conditions: 'sunny' },
  tokyo: { tempC: 22, conditions: 'light rain' },
  lima: { tempC: 19, conditions: 'overcast' },
  oslo: { tempC: 4, conditions: 'snow showers' },
  london: { tempC: 12, conditions: 'drizzle' },
  'new york': { tempC: 15, conditions: 'clear' },
}

/** Stored so the e2e suite can check what was actually sent. */
export const outbox: { to: string; subject: string; body: string }[] = []

export const weatherTool = getWeather.server(async ({ city }, { signal }) => {
  await delay(150, signal)
  const known = WEATHER[city.trim().toLowerCase()]
  // A ToolError speaks to the model (and the user): its message passes through; other errors stay in the server log.
  if (!known) throw new ToolError(`No weather station reports for "${city}"`)
  return { city, ...known }
})

export const emailTool = sendEmail.server(async (email) => {
  outbox.push(email)
  return { sent: true, to: email.to }
})

export const deleteFilesTool = deleteFiles.server(async ({ pattern }) => {
  // A demo never deletes anything: it counts what it would have.
  return { deleted: pattern.length % 7 + 1 }
})

/** Server tools run here; bare definitions are executed by the browser. */
export const chatTools = [weatherTool, emailTool, deleteFilesTool, setTheme, getBrowserInfo, copyToClipboard]

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      reject(signal.reason)
    }, { once: true })
  })
}
