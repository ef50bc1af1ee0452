import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { agentTool, type ChatModel } from '@toolgate/ai/server'
import { emailTool } from './serverTools.ts'

// A subagent: the research assistant is an agent of its own (its model, its tools) that the chat's
// model calls as a tool. It searches the team's notes, then emails a summary: the email asks the
// user first (send_email's policy, outside acme.test), through the chat's own approval dialog.

const NOTES = [
  { topic: 'launch', text: 'Code freeze on Monday; the launch is on Friday at 10:00.' },
  { topic: 'launch', text: 'Marketing publishes the blog post an hour after the launch.' },
  { topic: 'pricing', text: 'The Team plan stays at 12 EUR per seat.' },
]

export const searchNotes = toolDefinition({
  name: 'search_notes',
  description: "Searches the team's notes",
  inputSchema: v.object({ query: v.string() }),
  outputSchema: v.object({ notes: v.array(v.string()) }),
  readOnly: true,
}).server(({ query }) => ({ notes: NOTES.filter((note) => query.toLowerCase().includes(note.topic)).map((note) => note.text) }))

/** The research assistant on `model`: the chat's own (the scripted demo model has rules for its tasks). */
export function researchAssistant(model: ChatModel) {
  return agentTool({
    name: 'research-assistant',
    description: "Looks things up in the team's notes and emails a summary. Give it the topic and who gets the summary.",
    model,
    instructions: 'You are a research assistant. Search the notes, then email a short summary to the person named.',
    tools: [searchNotes, emailTool],
  })
}
