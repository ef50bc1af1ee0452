import { scriptedModel, type ScriptedResult, type ScriptRule } from '@toolgate/ai/server/testing'
import type { chatTools } from './serverTools.ts'
import type { researchAssistant, searchNotes } from './researchAssistant.ts'

type Tools = readonly [...typeof chatTools, typeof searchNotes, ReturnType<typeof researchAssistant>]

/** Splits "Paris, Tokyo and Lima" into cities. */
function cities(text: string): string[] {
  return text
    .replace(/[?.!]+$/, '')
    .split(/\s*,\s*|\s+and\s+/i)
    .map((city) => city.trim())
    .filter(Boolean)
}

function describeWeather(result: ScriptedResult<Tools>): string {
  if (result.tool !== 'get_weather') return result.content
  if (!result.ok) return `I could not get the weather for ${(result.input as { city?: unknown })?.city}: ${result.content}`
  const { city, tempC, conditions } = result.output
  return `${city}: ${tempC}°C and ${conditions}.`
}

function deniedText(result: ScriptedResult<Tools>, what: string): string {
  return result.reason ? `Okay, I did not ${what}. You said: "${result.reason}".` : `Okay, I did not ${what}.`
}

function cleanUpSentence(result: ScriptedResult<Tools>): string {
  const pattern = (result.input as { pattern?: unknown } | undefined)?.pattern
  if (result.tool === 'delete_files' && result.ok) return `Deleted ${result.output.deleted} files matching ${result.input.pattern}.`
  if (result.status === 'denied') return `I left the files matching ${String(pattern)} alone${result.reason ? `, as you said: "${result.reason}"` : ', as you asked'}.`
  return `I could not delete the files matching ${String(pattern)}: ${result.content}`
}

const LONG_STORY = Array.from(
  { length: 60 },
  (_, i) => `Chapter ${i + 1}: the tool gate opened, a request walked through, was validated twice, and went on its way.`,
).join(' ')

const rules: ScriptRule<Tools>[] = [
  // A subagent (./researchAssistant.ts): the chat's model hands the task to the research assistant,
  // whose own steps (on this same scripted model, the task as its message) search the notes and
  // email a summary, which waits for the user's approval.
  {
    when: /\bask the research assistant to (?:look into|research) (.+?) and email (?:it|a summary) to (\S+@[\w.-]+\w)/i,
    say: 'Handing this to the research assistant.',
    call: (match) => ({ tool: 'research-assistant', input: { task: `Find notes on ${match[1]}; email a summary to ${match[2]}` } }),
    then: ([result]) => (result?.ok ? `The research assistant reports: ${result.output}` : `The research assistant could not finish: ${result?.content}`),
  },
  {
    when: /^find notes on (.+?); email a summary to (\S+)$/im,
    say: 'Searching the notes.',
    call: (match) => ({ tool: 'search_notes', input: { query: match[1]! } }),
    then: (results, { round, match }) => {
      const last = results[results.length - 1]!
      if (round === 1) {
        const notes = last.tool === 'search_notes' && last.ok ? last.output.notes : []
        const body = `Hi,\n\nWhat the notes say about ${match[1]}:\n${notes.map((note) => `- ${note}`).join('\n') || '- nothing yet'}\n\nBest regards`
        return { call: { tool: 'send_email', input: { to: match[2]!, subject: `Notes on ${match[1]}`, body } } }
      }
      if (last.status === 'denied') return deniedText(last, 'send the summary')
      return last.tool === 'send_email' && last.ok ? `Emailed a summary to ${last.input.to}.` : `The summary could not be sent: ${last.content}`
    },
  },
  // One step with a browser tool and a call that waits for approval: the page may answer the one while the other waits.
  {
    when: /\bsend my time ?zone to (\S+@[\w.-]+\w)/i,
    say: 'Reading your time zone, then emailing it once you approve.',
    call: (match) => [
      { tool: 'get_browser_info', input: {} },
      { tool: 'send_email', input: { to: match[1]!, subject: 'My time zone', body: 'Hi,\n\nMy time zone, as my browser says.\n\nBest regards' } },
    ],
    then: (results) => {
      const info = results.find((r) => r.tool === 'get_browser_info')
      const email = results.find((r) => r.tool === 'send_email')
      const zone = info?.tool === 'get_browser_info' && info.ok ? `Your time zone is ${info.output.timeZone}.` : `I could not read your browser: ${info?.content}`
      if (email?.status === 'denied') return `${zone} ${deniedText(email, 'send the email')}`
      return email?.tool === 'send_email' && email.ok ? `${zone} Sent it to ${email.input.to}.` : `${zone} The email could not be sent: ${email?.content}`
    },
  },
  // One step with an AG-UI frontend tool (the page's, below) and a call that waits for approval (e2e/tests/copilotkit.spec.ts).
  {
    when: /\bplan the launch and e-?mail (\S+@[\w.-]+\w)/i,
    call: (match) => [
      { tool: 'confirm_plan', input: { plan: 'Freeze the code on Monday, ship on Friday' } },
      { tool: 'send_email', input: { to: match[1]!, subject: 'Launch plan', body: 'Hi,\n\nCode freeze on Monday, launch on Friday.\n\nBest regards' } },
    ],
    then: (results) => {
      // `confirm_plan` is the page's AG-UI frontend tool, not one of the demo's: its result is typed loosely.
      const plan = results.find((r) => (r.tool as string) === 'confirm_plan') as { readonly ok: boolean; readonly output?: unknown } | undefined
      const email = results.find((r) => r.tool === 'send_email')
      const confirmed = plan?.ok && (plan.output as { confirmed?: boolean }).confirmed ? 'Plan confirmed.' : 'Plan not confirmed.'
      return email?.tool === 'send_email' && email.ok ? `${confirmed} Sent it to ${email.input.to}.` : `${confirmed} The email was not sent (${email?.status}).`
    },
  },
  {
    when: /\b(morning briefing|several tools|all at once)\b/i,
    say: 'Checking a few things at once.',
    call: () => [
      { tool: 'get_weather', input: { city: 'Paris' } },
      { tool: 'get_weather', input: { city: 'Tokyo' } },
      { tool: 'get_browser_info', input: {} },
    ],
    then: (results) => {
      const info = results.find((r) => r.tool === 'get_browser_info')
      const weather = results.filter((r) => r.tool === 'get_weather').map(describeWeather)
      const local = info?.tool === 'get_browser_info' && info.ok ? `You are in the ${info.output.timeZone} time zone, reading in ${info.output.language}.` : ''
      return [...weather, local].filter(Boolean).join(' ')
    },
  },
  {
    when: /\bthink (?:about|through) (.+?)[.?!]*$/i,
    call: (match) => ({ tool: 'think', input: { thought: `The user asks me to think about ${match[1]}. I should weigh it before I answer.` } }),
    then: ([result]) => (result?.ok ? 'I thought it over; see my thought above.' : `I could not think: ${result?.content}`),
  },
  {
    when: /chart (?:the )?(?:temperatures?|weather) (?:in|for|of) (.+)/i,
    call: (match) => ({ tool: 'chart_temperatures', input: { cities: cities(match[1]!) } }),
    then: ([result]) =>
      result?.tool === 'chart_temperatures' && result.ok
        ? `Here is the chart: ${result.output.temperatures.map(({ city, tempC }) => `${city} ${tempC}°C`).join(', ')}.`
        : `I could not draw the chart: ${result?.content}`,
  },
  {
    when: /weather (?:in|for) (.+)/i,
    call: (match) => cities(match[1]!).map((city) => ({ tool: 'get_weather', input: { city } })),
    then: (results) => results.map(describeWeather).join(' '),
  },
  {
    when: /e-?mail\s+(\S+@[\w.-]+\w)(?:\s+about\s+(.+))?/i,
    call: (match) => {
      const subject = match[2]?.replace(/[.!?]+$/, '') ?? 'Hello'
      return {
        tool: 'send_email',
        input: { to: match[1], subject, body: `Hi,\n\nA quick note about ${subject.toLowerCase()}.\n\nBest regards` },
      }
    },
    then: ([result]) => {
      if (!result) return 'Nothing happened.'
      if (result.status === 'denied') return deniedText(result, 'send the email')
      if (result.tool !== 'send_email' || !result.ok) return `The email could not be sent: ${result.content}`
      const { to, subject } = result.input
      return `Sent the email to ${to} with the subject "${subject}"${result.edited ? ', as you edited it' : ''}.`
    },
  },
  {
    when: /\bclean up\b/i,
    say: 'Two things to delete; each needs your approval.',
    call: () => [
      { tool: 'delete_files', input: { pattern: '*.log' } },
      { tool: 'delete_files', input: { pattern: '*.tmp' } },
    ],
    // One sentence per call, as a person would say it: never the raw result text the model reads.
    then: (results) => results.map(cleanUpSentence).join(' '),
  },
  {
    when: /\bbook a meeting\b/i,
    call: () => ({
      tool: 'book_meeting',
      input: {
        title: 'Launch review',
        when: { date: '2026-12-01', minutes: 30 },
        room: 'Atlas',
        attendees: [{ name: 'Ada', email: 'ada@acme.test' }, { name: 'Bob', email: 'bob@acme.test' }],
      },
    }),
    then: ([result]) => {
      if (!result) return 'Nothing happened.'
      if (result.status === 'denied') return deniedText(result, 'book the meeting')
      if (result.tool !== 'book_meeting' || !result.ok) return `Booking failed: ${result.content}`
      const names = result.input.attendees.map((a) => a.email).join(', ')
      return `Booked ${result.output.room} for "${result.input.title}" on ${result.input.when.date} (${result.input.when.minutes} min) with ${names}${result.edited ? ', as you edited it' : ''}.`
    },
  },
  {
    when: /\b(?:free|show(?: me)?(?: the)?) rooms\b(?: (?:on|for) (\w+))?/i,
    call: (m) => ({ tool: 'show_rooms', input: { day: m[1] ?? 'Monday' } }),
    then: ([result]) => (result?.tool === 'show_rooms' && result.ok ? `${result.output.rooms.length} rooms are free: pick one in the app above.` : `I could not list the rooms: ${result?.content}`),
  },
  {
    when: /\b(pick|choose) a color\b/i,
    call: () => ({ tool: 'ask_user', input: { question: 'Which accent color do you like?', options: ['Teal', 'Coral', 'Indigo'] } }),
    then: ([result]) => (result?.tool === 'ask_user' && result.ok ? `You chose ${result.output.choice}.` : `No choice made: ${result?.content}`),
  },
  {
    when: /delete\s+(?:the\s+)?(\S+)(?:\s+files?)?/i,
    call: (match) => ({ tool: 'delete_files', input: { pattern: match[1] } }),
    then: ([result]) => {
      if (!result) return 'Nothing happened.'
      if (result.status === 'denied') return deniedText(result, 'delete anything')
      if (result.tool !== 'delete_files' || !result.ok) return `Deleting failed: ${result.content}`
      return `Deleted ${result.output.deleted} files matching ${result.input.pattern}.`
    },
  },
  {
    when: /\b(dark|light)\s+(?:mode|theme)\b/i,
    call: (match) => ({ tool: 'set_theme', input: { theme: match[1]!.toLowerCase() } }),
    then: ([result]) => (result?.tool === 'set_theme' && result.ok ? `Switched to the ${result.output.theme} theme.` : `I could not switch: ${result?.content}`),
  },
  {
    when: /\b(time ?zone|language|browser)\b/i,
    call: () => ({ tool: 'get_browser_info', input: {} }),
    then: ([result]) =>
      result?.tool === 'get_browser_info' && result.ok
        ? `Your time zone is ${result.output.timeZone} and your language is ${result.output.language}.`
        : `I could not read your browser: ${result?.content}`,
  },
  {
    when: /copy\s+["“']?(.+?)["”']?\s+to\s+(?:my\s+|the\s+)?clipboard/i,
    call: (match) => ({ tool: 'copy_to_clipboard', input: { text: match[1] } }),
    then: ([result]) => {
      if (!result) return 'Nothing happened.'
      if (result.status === 'denied') return deniedText(result, 'copy anything')
      return result.tool === 'copy_to_clipboard' && result.ok ? `Copied "${result.input.text}" to your clipboard.` : `Copying failed: ${result.content}`
    },
  },
  {
    when: /transfer (\d+)(?: eur)? to (\w+)/i,
    call: (m) => ({ tool: 'transfer_money', input: { to: m[2]!, amount: Number(m[1]) } }),
    then: ([result]) =>
      result.status === 'success' && result.tool === 'transfer_money'
        ? `Transferred ${result.output.transferred} EUR to ${result.output.to}.`
        : `The transfer did not happen (${result.status}): ${result.content}`,
  },
  // The AG-UI frontend tools the server accepts from a page that declares them (main.ts, `frontendTools`):
  // the page runs them (e2e/frontends/copilotkit/). A page that declares none gets an unknown-tool error.
  {
    when: /\b(?:make|set|change) the background (?:to )?(\w+)/i,
    call: (match) => ({ tool: 'set_background', input: { color: match[1]!.toLowerCase() } }),
    then: ([result]) => (result.ok ? `The background is ${(result.output as { color?: string }).color} now.` : `I could not change the background: ${result.content}`),
  },
  {
    when: /\bplan the launch\b/i,
    call: () => ({ tool: 'confirm_plan', input: { plan: 'Freeze the code on Monday, ship on Friday' } }),
    then: ([result]) => {
      if (!result.ok) return `No plan: ${result.content}`
      return (result.output as { confirmed?: boolean }).confirmed ? 'Going ahead: code freeze on Monday, launch on Friday.' : 'Okay, the plan is off.'
    },
  },
  { when: /\b(long story|tell me a story)\b/i, reply: LONG_STORY },
  // A run that fails (the model's stream breaks): what a page shows of a failed run, live and reloaded.
  {
    when: /\bfail the run\b/i,
    reply: () => {
      throw new Error('the scripted demo model failed on purpose')
    },
  },
  { when: /^\s*(hi|hello|hey)\b/i, reply: 'Hello! I am the scripted demo model. Ask me about the weather, or to send an email.' },
]

const FALLBACK =
  'I am a scripted demo model. Try: "What is the weather in Paris?", "Email bob@example.com about the launch", ' +
  '"Delete the *.log files", "Chart the temperatures in Paris, Tokyo and Oslo", "Switch to dark mode", "What is my time zone?", "Copy hello to my clipboard" ' +
  'or "Give me a morning briefing".'

/** The embedded default: works with no key and no network. */
export function scriptedDemoModel(delayMs: number) {
  return scriptedModel(rules, { fallback: FALLBACK, delayMs, name: 'scripted-demo' })
}
