import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { agentTool } from '@toolgate/ai/server'
import { scriptedModel } from '@toolgate/ai/server/testing'

/**
 * The chat the dialects' subagent tests share: "delegate" calls the `research` agent, whose
 * `send_email` needs approval; `sent` lists whom an email went to (each dialect asserts it ran once).
 */
export function researchChat() {
  const sent: string[] = []
  const sendEmail = toolDefinition({ name: 'send_email', description: 'Sends an email', inputSchema: v.object({ to: v.string() }), needsApproval: true }).server(({ to }) => {
    sent.push(to)
    return { ok: true }
  })
  const research = agentTool({
    name: 'research',
    description: 'Researches and emails',
    model: scriptedModel([{ when: /email (\w+)/, say: 'Looking into it.', call: (m) => ({ tool: 'send_email', input: { to: m[1] } }), then: ([r]) => `email ${r.status}` }]),
    tools: [sendEmail],
  })
  const model = scriptedModel([{ when: 'delegate', call: () => ({ tool: 'research', input: { task: 'email bob' } }), then: ([r]) => `Agent: ${r.content}` }])
  return { sent, model, tools: [research] }
}
