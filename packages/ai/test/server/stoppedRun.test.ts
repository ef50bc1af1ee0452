import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { toolDefinition } from '@toolgate/ai'
import { executeToolCalls } from '../../src/server/run/toolCalls.ts'
import { createToolRegistry } from '../../src/tools/toolRegistry.ts'

// A tool must never start once its run stopped (the client went away right after approving, a
// stop request, a lost lease): the call ends with an outcome that says it did not run.

describe('a tool of a stopped run', () => {
  it('does not start: the call ends "did not run: the run stopped before it started", and nothing ran', async () => {
    const ran: unknown[] = []
    const transfer = toolDefinition({ name: 'transfer_money', description: 'Sends money', inputSchema: v.object({ amount: v.number() }) }).server(async (input) => {
      ran.push(input)
      return { ok: true }
    })
    const entry = createToolRegistry([transfer], 'test').get('transfer_money')!
    const stopped = new AbortController()
    stopped.abort()
    const failures = { tool: () => 'failed', policy: () => {} }
    const results = await executeToolCalls([{ toolCallId: 'call_1', toolName: 'transfer_money', entry, input: { amount: 5 } }], {
      signal: stopped.signal,
      whenAborted: () => () => {},
      context: undefined,
      timeoutMs: 60_000,
      maxOutputBytes: 1_000_000,
      failures,
    })
    expect(ran).toEqual([])
    expect(results.map(({ toolCallId, status, content }) => ({ toolCallId, status, content }))).toEqual([
      { toolCallId: 'call_1', status: 'error', content: 'Tool "transfer_money" did not run: the run stopped before it started' },
    ])
  })
})
