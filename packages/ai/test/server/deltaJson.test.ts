import { describe, expect, it } from 'vitest'
import type { RunEvent } from '@toolgate/ai/protocol'
import { RunEvents } from '../../src/server/events/runEvents.ts'

// A model delta's event carries its JSON, written out where it is made (runEvents.ts `#emit`):
// it must be the very text `JSON.stringify` makes of the event, whatever the delta holds.
const DELTAS = ['plain', 'say "hi"', 'back\\slash', 'line\nbreak\ttab\r', '\u0000\u001f\u007f', 'Grüße 東京 🌍', '\u2028\u2029', '\ud800 lone \udfff', '</script>', '']

function told(options: { timestamps?: boolean } = {}) {
  const sent: { event: RunEvent; json: string | undefined }[] = []
  const events = new RunEvents('thread_1', 'run_1', (event, _seq, json) => void sent.push({ event, json }), options)
  events.started()
  events.stepStarted('msg_"quoted"')
  for (const delta of DELTAS) events.reasoning(delta)
  for (const delta of DELTAS) events.text(delta)
  events.toolCallStart('call_\u2028"1"', 'get_weather')
  for (const delta of DELTAS) events.toolCallArgs('call_\u2028"1"', delta)
  events.toolCallEnd('call_\u2028"1"')
  events.result({ role: 'tool', id: 'msg_</script>', toolCallId: 'call_\u2028"1"', toolName: 'get_weather', content: '{"tempC":5}', status: 'success', output: { tempC: 5, note: 'Grüße "x"' } })
  events.stepStarted('msg_2')
  events.text('It is 5°C.')
  events.toolCallStart('call_2', 'tool "quoted"\n')
  events.finished({ type: 'success', pendingToolCallIds: ['call_0'] }, { model: 'scripted', inputTokens: 1, outputTokens: 2 })
  return sent
}

describe('the JSON of a delta event', () => {
  it('is JSON.stringify of the event, for text, reasoning and tool-call arguments', () => {
    const sent = told()
    const deltas = sent.filter(({ event }) => event.type === 'TEXT_MESSAGE_CONTENT' || event.type === 'REASONING_MESSAGE_CONTENT' || event.type === 'TOOL_CALL_ARGS')
    expect(deltas).toHaveLength(3 * (DELTAS.length - 1) + 1)
    for (const { event, json } of deltas) expect(json).toBe(JSON.stringify(event))
  })

  it('is JSON.stringify of the event for every other event a turn makes, whatever its ids and names hold', () => {
    const sent = told()
    const types = new Set(sent.filter(({ json }) => json !== undefined).map(({ event }) => event.type))
    for (const type of ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_END', 'TOOL_CALL_START', 'TOOL_CALL_END', 'TOOL_CALL_RESULT', 'RUN_FINISHED']) expect(types).toContain(type)
    for (const { event, json } of sent) if (json !== undefined) expect(json).toBe(JSON.stringify(event))
  })

  it('is left to the sink when a timestamp joins the event', () => {
    const sent = told({ timestamps: true })
    expect(sent.every(({ json }) => json === undefined)).toBe(true)
    expect(sent.find(({ event }) => event.type === 'TOOL_CALL_ARGS')?.event).toMatchObject({ timestamp: expect.any(Number) })
  })
})
