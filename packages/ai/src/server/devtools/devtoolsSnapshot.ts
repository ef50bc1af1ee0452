import type { DevtoolsRun, DevtoolsSnapshot } from '../../protocol/devtools.ts'
import type { RunEvent } from '../../protocol/events.ts'
import { verifiedDecisions } from '../decisions/records.ts'
import { HttpError } from '../errors.ts'
import type { ChatConfig } from '../options.ts'
import { isRunning, loadHead, loadMessages, threadStatus } from '../thread/thread.ts'

/**
 * `GET ?threadId=&devtools`: the thread as stored (head, open step with its interrupts and
 * answers, lease) and its recent runs' events, for the devtools panel. A handler without
 * `devtools: true` serves nothing here (404, as if the route did not exist).
 */
export async function devtoolsSnapshot(config: ChatConfig, request: Request, threadId: string): Promise<DevtoolsSnapshot> {
  const { devtools } = config
  if (!devtools) throw new HttpError(404, 'DEVTOOLS_DISABLED', 'This handler does not serve devtools; create it with `devtools: true`', 'devtools')
  const head = await loadHead(config, request, threadId, 'read')
  const messages = await loadMessages(config.store, head)
  // The whole record, verified (as `GET ?decisions` is), with the decisions the messages show checked against it.
  const decisions = await verifiedDecisions(config, head, messages)
  const { runLeaseMs } = config.limits
  const known = [...devtools.of(threadId)]
  const active = head.activeRun
  if (active && !known.some((run) => run.runId === active.runId)) known.push({ runId: active.runId, startedAt: active.startedAt, kind: '' })
  const runs = await Promise.all(known.map((run) => devtoolsRun(config, run, threadId)))
  return {
    threadId: head.id,
    status: threadStatus(head, runLeaseMs),
    store: config.store.name,
    head: {
      version: head.version,
      createdAt: head.createdAt,
      updatedAt: head.updatedAt,
      messageCount: head.messageCount,
      bytes: head.bytes,
      stopRequested: head.stopRequested,
      resolvedInterruptIds: head.resolvedInterruptIds,
    },
    lease: active && { ...active, expiresAt: active.renewedAt + runLeaseMs, live: isRunning(head, runLeaseMs) },
    messages,
    // A tool's state for its input request (an MCP server's requestState) stays on the server, even here.
    step: head.step && { ...head.step, interrupts: head.step.interrupts.map((interrupt) => (interrupt.inputRequest ? { ...interrupt, inputRequest: { ...interrupt.inputRequest, state: '[kept on the server]' } } : interrupt)) },
    decisions,
    grants: head.grants ?? [],
    runs,
  }
}

async function devtoolsRun(config: ChatConfig, run: { readonly runId: string; readonly startedAt: number; readonly kind: string }, threadId: string): Promise<DevtoolsRun> {
  const logged = await config.eventLog.read(run.runId, 0, undefined, threadId)
  return {
    runId: run.runId,
    ...(run.kind === '' ? {} : { kind: run.kind }),
    startedAt: run.startedAt,
    events: (logged?.events ?? []).map(({ seq, data }) => ({ seq, event: JSON.parse(data) as RunEvent })),
    ended: logged?.ended ?? false,
    expired: logged === undefined,
  }
}
