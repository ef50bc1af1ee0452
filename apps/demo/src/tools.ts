import * as v from 'valibot'
import { thinkTool, toolDefinition } from '@toolgate/ai'

// Defined once, imported by both the server (which executes server tools and declares the rest
// to the model) and the browser (which executes client tools and renders every call).

export const getWeather = toolDefinition({
  name: 'get_weather',
  title: 'Weather',
  description: 'Current weather for a city',
  inputSchema: v.object({ city: v.pipe(v.string(), v.minLength(1), v.description('City name, e.g. Paris')) }),
  outputSchema: v.object({ city: v.string(), tempC: v.number(), conditions: v.string() }),
  metadata: { icon: 'cloud' },
})

export const sendEmail = toolDefinition({
  name: 'send_email',
  title: 'Send email',
  description: 'Send an email on behalf of the user',
  inputSchema: v.object({
    to: v.pipe(v.string(), v.email(), v.description('Recipient address')),
    subject: v.pipe(v.string(), v.minLength(1)),
    body: v.string(),
  }),
  outputSchema: v.object({ sent: v.boolean(), to: v.string() }),
  needsApproval: (input) =>
    input.to.endsWith('@acme.test') ? false : { reason: `${input.to} is outside the company domain` },
  metadata: { icon: 'mail' },
})

export const transferMoney = toolDefinition({
  name: 'transfer_money',
  title: 'Transfer money',
  description: 'Transfer money to someone; a reviewer from finance approves it',
  inputSchema: v.object({
    to: v.pipe(v.string(), v.minLength(1), v.description('Recipient')),
    amount: v.pipe(v.number(), v.minValue(1), v.description('Amount in EUR')),
  }),
  outputSchema: v.object({ transferred: v.number(), to: v.string() }),
  // Money moves only when someone in finance, not the requester, says so.
  needsApproval: (input) => ({ reason: `Transfers ${input.amount} EUR to ${input.to}`, reviewers: { roles: ['finance'] } }),
  metadata: { icon: 'banknote' },
})

export const deleteFiles = toolDefinition({
  name: 'delete_files',
  title: 'Delete files',
  description: 'Delete files matching a glob pattern',
  inputSchema: v.object({ pattern: v.pipe(v.string(), v.minLength(1)) }),
  outputSchema: v.object({ deleted: v.number() }),
  needsApproval: true,
  // What the model reads when the user says no: it should not go looking for another way to delete.
  rejectMessage: ({ input }) => `The user declined to delete files matching ${input.pattern}. Do not try again unless they ask.`,
  metadata: { icon: 'trash', destructive: true },
})

export const setTheme = toolDefinition({
  name: 'set_theme',
  title: 'Set theme',
  description: 'Switch the page between light and dark',
  inputSchema: v.object({ theme: v.picklist(['light', 'dark']) }),
  outputSchema: v.object({ theme: v.picklist(['light', 'dark']) }),
  metadata: { icon: 'contrast' },
})

export const getBrowserInfo = toolDefinition({
  name: 'get_browser_info',
  title: 'Browser info',
  description: "Report the browser's time zone and language",
  outputSchema: v.object({ timeZone: v.string(), language: v.string() }),
  metadata: { icon: 'compass' },
})

export const copyToClipboard = toolDefinition({
  name: 'copy_to_clipboard',
  title: 'Copy to clipboard',
  description: "Copy text to the user's clipboard",
  inputSchema: v.object({ text: v.string() }),
  outputSchema: v.object({ copied: v.boolean() }),
  needsApproval: true,
  metadata: { icon: 'clipboard' },
})

export const chartTemperatures = toolDefinition({
  name: 'chart_temperatures',
  title: 'Temperature chart',
  description: 'Draw a bar chart of the current temperatures in some cities; the user sees the image',
  inputSchema: v.object({ cities: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1), v.maxLength(8)) }),
  outputSchema: v.object({ temperatures: v.array(v.object({ city: v.string(), tempC: v.number() })) }),
  metadata: { icon: 'chart' },
})

export const bookMeeting = toolDefinition({
  name: 'book_meeting',
  title: 'Book a meeting',
  description: 'Book a meeting room and invite people',
  inputSchema: v.object({
    title: v.pipe(v.string(), v.minLength(3), v.title('Title')),
    when: v.pipe(v.object({
      date: v.pipe(v.string(), v.isoDate(), v.title('Date')),
      minutes: v.pipe(v.number(), v.integer(), v.minValue(15), v.maxValue(240), v.title('Minutes')),
    }), v.title('When')),
    room: v.pipe(v.picklist(['Atlas', 'Borealis', 'Cirrus']), v.title('Room')),
    attendees: v.pipe(v.array(v.object({ name: v.pipe(v.string(), v.minLength(1), v.title('Name')), email: v.pipe(v.string(), v.email(), v.title('Email')) })), v.minLength(1), v.title('Attendees')),
  }),
  outputSchema: v.object({ booked: v.boolean(), room: v.string(), invited: v.number() }),
  needsApproval: (input) => ({ reason: `Books ${input.room} and invites ${input.attendees.length} people` }),
  metadata: { icon: 'calendar' },
})

export const askUser = toolDefinition({
  name: 'ask_user',
  title: 'Ask the user',
  description: 'Ask the user to choose between options; waits for their answer',
  inputSchema: v.object({ question: v.string(), options: v.pipe(v.array(v.string()), v.minLength(2)) }),
  outputSchema: v.object({ choice: v.string() }),
  metadata: { icon: 'question' },
})

/** The no-op "think" tool: the model reasons between tool calls; the UI shows its calls as thoughts. */
export const think = thinkTool()

export const demoTools = [getWeather, sendEmail, deleteFiles, setTheme, getBrowserInfo, copyToClipboard, chartTemperatures, bookMeeting, askUser, think] as const
