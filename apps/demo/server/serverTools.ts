import { ToolError, toolResult } from '@toolgate/ai'
import { bookRoom, showRooms } from './roomsApp.ts'
import { askUser, bookMeeting, chartTemperatures, deleteFiles, transferMoney, getBrowserInfo, copyToClipboard, getWeather, sendEmail, setTheme, think } from '../src/tools.ts'

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

/** Returns an image: a bar chart drawn here as SVG, stored by the chat handler and shown in the tool card. */
export const chartTool = chartTemperatures.server(async ({ cities }) => {
  const temperatures = cities.map((city) => ({ city, tempC: WEATHER[city.trim().toLowerCase()]?.tempC ?? 0 }))
  return toolResult({
    output: { temperatures },
    content: [{ type: 'image', mediaType: 'image/svg+xml', data: new TextEncoder().encode(barChart(temperatures)), filename: 'temperatures.svg' }],
  })
})

/** Stored so the e2e suite can check what was actually booked. */
export const bookings: { title: string; room: string; attendees: { name: string; email: string }[] }[] = []

export const meetingTool = bookMeeting.server(async (meeting) => {
  bookings.push(meeting)
  return { booked: true, room: meeting.room, invited: meeting.attendees.length }
})

/** Stored so the e2e suite can check what was actually transferred. */
export const transfers: { to: string; amount: number }[] = []

export const transferTool = transferMoney.server(async (transfer) => {
  transfers.push(transfer)
  return { transferred: transfer.amount, to: transfer.to }
})

/** Server tools run here; bare definitions are executed by the browser. */
export const chatTools = [weatherTool, emailTool, transferTool, deleteFilesTool, setTheme, getBrowserInfo, copyToClipboard, chartTool, meetingTool, askUser, think, showRooms, bookRoom]

function barChart(rows: readonly { city: string; tempC: number }[]): string {
  const width = 80 * rows.length + 40
  const max = Math.max(1, ...rows.map((row) => Math.abs(row.tempC)))
  const escape = (text: string) => text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)
  const bars = rows.map(({ city, tempC }, i) => {
    const height = Math.round((Math.abs(tempC) / max) * 120)
    const x = 30 + i * 80
    return (
      `<rect x="${x}" y="${150 - height}" width="50" height="${height}" rx="4" fill="#4f7cff"/>` +
      `<text x="${x + 25}" y="${144 - height}" text-anchor="middle" font-size="13" fill="#333">${tempC}°C</text>` +
      `<text x="${x + 25}" y="172" text-anchor="middle" font-size="13" fill="#333">${escape(city)}</text>`
    )
  })
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="185" viewBox="0 0 ${width} 185" role="img"><rect width="100%" height="100%" fill="#fff"/>${bars.join('')}</svg>`
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      reject(signal.reason)
    }, { once: true })
  })
}
