import { describe, expect, it } from 'vitest'
import type { ThreadAssistantMessage, ThreadToolMessage, ThreadUserMessage } from '../../src/protocol/messages.ts'
import type { OpenStep, StoredInterrupt, ThreadHead } from '@toolgate/ai/server'
import type { Recovery } from '../../src/server/thread/recovery.ts'
import {
  claimForMessage,
  claimForResume,
  claimNewThread,
  recordAnswers,
  release,
  renewLease,
  requestStop,
  revokeGrant,
  saveStep,
  storedSize,
  takeOver,
} from '../../src/server/thread/transitions.ts'

// The thread head's transitions as data in, data out: every way a head changes, without a store,
// a model or a clock. The HTTP tests (approval, lostRuns, crash, concurrency) cover the same
// changes through the handler.

const NOW = 1_700_000_000_000
const EARLIER = NOW - 5_000

const user: ThreadUserMessage = { role: 'user', id: 'msg_user', content: 'hello' }
const call = (id: string, name = 'send_email') => ({ id, name, arguments: '{}' })
const stepMessage: ThreadAssistantMessage = { role: 'assistant', id: 'msg_step', content: '', toolCalls: [call('call_a'), call('call_b')] }
const result = (toolCallId: string, status: ThreadToolMessage['status'] = 'success'): ThreadToolMessage => ({
  role: 'tool',
  id: `msg_${toolCallId}`,
  toolCallId,
  toolName: 'send_email',
  content: status,
  status,
})
const interrupt = (id: string, toolCallId: string, answered = false): StoredInterrupt => ({
  id,
  reason: 'tool_approval',
  toolCallId,
  toolName: 'send_email',
  input: {},
  ...(answered ? { answer: { kind: 'approval' as const, approved: true } } : {}),
})
const openStep = (extra: Partial<OpenStep> = {}): OpenStep => ({
  message: stepMessage,
  results: [],
  interrupts: [interrupt('int_a', 'call_a')],
  running: [],
  steps: 2,
  ...extra,
})
const headOf = (extra: Partial<ThreadHead> = {}): ThreadHead => ({
  id: 'thread_1',
  version: 3,
  createdAt: EARLIER,
  updatedAt: EARLIER,
  messageCount: 4,
  bytes: 400,
  resolvedInterruptIds: ['int_old'],
  ...extra,
})
const nothingLost = (head: ThreadHead): Recovery => ({ step: head.step, append: [], results: [], rerun: [] })

/** Who sent the turn's message: the requester of its calls. */
const ALICE = { id: 'alice', roles: ['staff'] }

describe('thread transitions', () => {
  it('claimNewThread: stores the first message and leases the thread from it', () => {
    expect(claimNewThread({ runId: 'run_1', user, by: ALICE, now: NOW })).toEqual({
      head: { activeRun: { runId: 'run_1', startedAt: NOW, renewedAt: NOW, fromMessage: 1 }, turnBy: ALICE },
      append: [user],
      start: { steps: 0 },
    })
  })

  it('claimForMessage on an idle thread: appends the message, leases from after it, announces nothing', () => {
    const head = headOf()
    expect(claimForMessage(head, { runId: 'run_1', user, by: ALICE, recovery: nothingLost(head), superseded: undefined, now: NOW })).toEqual({
      head: { step: undefined, activeRun: { runId: 'run_1', startedAt: NOW, renewedAt: NOW, fromMessage: 5 }, turnBy: ALICE },
      append: [user],
      start: { steps: 0, announced: [] },
    })
  })

  it('claimForMessage over open interrupts: the step joins the history with its results in call order, then the message', () => {
    const head = headOf({ step: openStep({ results: [result('call_b')] }) })
    const denial = result('call_a', 'denied')
    const edited = { ...stepMessage, toolCalls: [{ ...call('call_a'), arguments: '{"to":"ann"}' }, call('call_b')] }
    const change = claimForMessage(head, { runId: 'run_1', user, by: ALICE, recovery: nothingLost(head), superseded: { message: edited, results: [denial] }, now: NOW })
    expect(change.append).toEqual([edited, denial, result('call_b'), user])
    expect(change.head).toEqual({
      step: undefined,
      activeRun: { runId: 'run_1', startedAt: NOW, renewedAt: NOW, fromMessage: 4 + 4 },
      resolvedInterruptIds: ['int_old', 'int_a'],
      turnBy: ALICE,
    })
    expect(change.start).toEqual({ steps: 0, announced: [denial] })
  })

  it('claimForMessage with calls to run again: the step stays open for them and the message waits for it', () => {
    const crashed = result('call_b', 'error')
    const step = openStep({ running: ['call_a'] })
    const head = headOf({ step })
    const recovery: Recovery = { step, append: [], results: [crashed], rerun: ['call_a'] }
    const change = claimForMessage(head, { runId: 'run_1', user, by: ALICE, recovery, superseded: { message: stepMessage, results: [] }, now: NOW })
    expect(change.append).toEqual([])
    expect(change.head).toEqual({
      step: { ...step, interrupts: [] },
      activeRun: { runId: 'run_1', startedAt: NOW, renewedAt: NOW, fromMessage: 4, resumed: true },
      resolvedInterruptIds: ['int_old', 'int_a'],
      turnBy: ALICE,
    })
    expect(change.start).toEqual({ steps: 0, announced: [crashed], rerun: ['call_a'], message: user })
  })

  it('recordAnswers stores a partly answered step and leaves the thread unclaimed', () => {
    const head = headOf({ step: openStep() })
    const answered = openStep({ interrupts: [interrupt('int_a', 'call_a', true), interrupt('int_b', 'call_b')] })
    expect(recordAnswers(head, { recovery: nothingLost(head), step: answered })).toEqual({ head: { step: answered }, append: [] })
  })

  it('claimForResume: the completed step claims the thread, resumed, with the steps the turn already made', () => {
    const head = headOf({ step: openStep() })
    const answered = openStep({ interrupts: [interrupt('int_a', 'call_a', true)] })
    const lostResults = [result('call_b', 'error')]
    const recovery: Recovery = { step: answered, append: [], results: lostResults, rerun: [] }
    expect(claimForResume(head, { runId: 'run_2', recovery, step: answered, now: NOW })).toEqual({
      head: { step: answered, activeRun: { runId: 'run_2', startedAt: NOW, renewedAt: NOW, fromMessage: 4, resumed: true } },
      append: [],
      start: { steps: 2, resume: true, announced: lostResults },
    })
  })

  it('requestStop names the run to stop', () => {
    expect(requestStop(headOf(), { runId: 'run_1' })).toEqual({ head: { stopRequested: 'run_1' } })
  })

  it('takeOver of a dead run: a new run continues from the last stored step', () => {
    const lost = { runId: 'run_dead', startedAt: EARLIER, renewedAt: EARLIER, fromMessage: 2 }
    const head = headOf({ activeRun: lost, stopRequested: 'run_dead' })
    const closed = [stepMessage, result('call_a', 'error'), result('call_b', 'error')]
    const recovery: Recovery = { step: undefined, append: closed, results: [result('call_a', 'error')], rerun: [] }
    expect(takeOver(head, { runId: 'run_new', recovery, now: NOW })).toEqual({
      head: { step: undefined, activeRun: { runId: 'run_new', startedAt: NOW, renewedAt: NOW, fromMessage: 7 }, stopRequested: undefined },
      append: closed,
      start: { steps: 0, announced: recovery.results, rerun: [] },
    })
  })

  it('takeOver of a dead run whose step waits for people: the thread is released to them, no run starts', () => {
    const step = openStep()
    const head = headOf({ step, activeRun: { runId: 'run_dead', startedAt: EARLIER, renewedAt: EARLIER, fromMessage: 4 } })
    const change = takeOver(head, { runId: 'run_new', recovery: nothingLost(head), now: NOW })
    expect(change).toEqual({ head: { step, activeRun: undefined, stopRequested: undefined }, append: [] })
    expect(change.start).toBeUndefined()
  })

  it('renewLease moves only the lease forward, and leaves a released thread released', () => {
    const activeRun = { runId: 'run_1', startedAt: EARLIER, renewedAt: EARLIER, fromMessage: 4 }
    expect(renewLease(headOf({ activeRun }), { now: NOW })).toEqual({ head: { activeRun: { ...activeRun, renewedAt: NOW } } })
    expect(renewLease(headOf(), { now: NOW })).toEqual({ head: { activeRun: undefined } })
  })

  it('saveStep writes the step and the appended messages, renewing the lease', () => {
    const activeRun = { runId: 'run_1', startedAt: EARLIER, renewedAt: EARLIER, fromMessage: 4 }
    const step = openStep({ running: ['call_a'] })
    expect(saveStep(headOf({ activeRun }), { fields: { step, resolvedInterruptIds: ['int_a'] }, append: [user], now: NOW })).toEqual({
      head: { step, resolvedInterruptIds: ['int_a'], activeRun: { ...activeRun, renewedAt: NOW } },
      append: [user],
    })
  })

  it('release writes what is left and lets the thread go', () => {
    const head = headOf({ activeRun: { runId: 'run_1', startedAt: EARLIER, renewedAt: EARLIER, fromMessage: 4 }, stopRequested: 'run_1' })
    expect(release(head, { append: [user] })).toEqual({ head: { activeRun: undefined, stopRequested: undefined }, append: [user] })
  })

  it('storedSize counts the open step with a result for each call', () => {
    expect(storedSize(headOf())).toBe(4)
    expect(storedSize(headOf({ step: openStep() }))).toBe(4 + 1 + 2)
  })

  it('a run and the writers beside it own disjoint fields: the run rebases its writes on theirs (thread/writer/) and neither overwrites the other', () => {
    const grant = { id: 'grant_1', toolName: 'send_email', by: ALICE, at: new Date(NOW).toISOString() }
    const head = headOf({ step: openStep(), grants: [grant], decisions: { count: 2, last: 'd2' }, activeRun: { runId: 'run_1', startedAt: EARLIER, renewedAt: EARLIER, fromMessage: 4 } })
    const fields = (change: { head: object }) => Object.keys(change.head).sort()
    // Beside a run: a revoke sets only the grants, a stop request only itself.
    expect(fields(revokeGrant(head, { grantId: 'grant_1' }))).toEqual(['grants'])
    expect(fields(requestStop(head, { runId: 'run_1' }))).toEqual(['stopRequested'])
    // The run: its step, the interrupts it resolved, its lease, its failure; never the grants or the decisions' tip it did not chain.
    const run = ['activeRun', 'lastRunError', 'resolvedInterruptIds', 'step', 'stopRequested']
    for (const change of [
      saveStep(head, { fields: { step: openStep({ running: ['call_a'] }) }, append: [], now: NOW }),
      renewLease(head, { now: NOW }),
      release(head, { append: [], fields: { step: undefined, resolvedInterruptIds: [] } }),
    ]) {
      for (const field of fields(change)) expect(run).toContain(field)
    }
  })
})
