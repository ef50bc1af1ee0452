import type { ToolInterrupt } from '../../protocol/interrupts.ts'
import type { ResumeAnswer } from '../../protocol/requests.ts'
import type { JsonSchema } from '../../schema/types.ts'
import { isRecord } from '../../util/isRecord.ts'
import type { CallOutcome, ThreadDraft, ToolApproval, ToolCallDraft } from '../draft/index.ts'
import type { ApproveOptions, ChatClientOptions } from '../options.ts'
import type { ClientToolResult } from './clientTools.ts'
import { callReading } from '../chunks/index.ts'

/** An interrupt of the pause: its call, and the arguments the tool runs with or the user is asked about. */
export interface Waiting {
  readonly interrupt: ToolInterrupt
  readonly call: ToolCallDraft
  readonly input: unknown
}

interface Entry extends Waiting {
  answered: boolean
}

/**
 * The book of answers: the interrupts a run paused on, which of them this client answered, and
 * the answers not yet sent. The one place that knows whether an interrupt is still open; the
 * draft shows what it decides (an open approval is `approval-requested`, an answer moves the
 * call on). Answers leave through `take()`, one request at a time, so requests never race.
 */
export class Pause {
  /** The draft in use: it is replaced when the thread is read again, and then `clear()` follows. */
  readonly #draft: () => ThreadDraft
  /** Who this page is signed in as, when the app said (`user`): an approval it may decide waits for "you". */
  readonly #user: Viewer | undefined
  readonly #entries = new Map<string, Entry>()
  #outbox: ResumeAnswer[] = []

  constructor(draft: () => ThreadDraft, user?: Viewer) {
    this.#draft = draft
    this.#user = user
  }

  /**
   * The run paused on `interrupts`: approvals are asked; a client tool whose result is still
   * queued (kept across `load()`) shows it; the other client tools are marked executing and
   * returned, for the client to run. Interrupts already known are left alone.
   */
  offer(interrupts: readonly ToolInterrupt[]): Waiting[] {
    const draft = this.#draft()
    const toRun: Waiting[] = []
    for (const offered of interrupts) {
      if (this.#entries.has(offered.id)) continue
      const interrupt = withCheckedPath(offered)
      // A subagent's call the draft does not hold (the stored thread keeps the run's own messages): in its subagents' parts, rebuilt from the path.
      if (interrupt.path && !draft.call(interrupt.toolCallId)) callReading.get()?.restoreSubagents(draft, interrupt)
      // A call the server paused on: found, or added to the last assistant message (after a reload, say).
      const call = draft.call(interrupt.toolCallId) ?? draft.addCall(draft.lastAssistantMessage(), interrupt.toolCallId, interrupt.toolName, { value: interrupt.input })
      const input = interrupt.input === undefined ? call.input : interrupt.input
      // A plain AG-UI interrupt names no tool: it is the call's.
      const named = interrupt.toolName === '' ? { ...interrupt, toolName: call.toolName } : interrupt
      const entry: Entry = { interrupt: named, call, input, answered: false }
      this.#entries.set(interrupt.id, entry)
      const queued = this.#outbox.find((answer) => answer.interruptId === interrupt.id)
      if (queued && !isApproval(queued)) {
        entry.answered = true
        draft.execute(call, input)
        draft.settle(call, outcomeOf(queued))
      } else if (interrupt.reason === 'client_tool') {
        draft.execute(call, input)
        toRun.push(entry)
      } else draft.askApproval(call, input, askedApproval(interrupt, this.#user))
    }
    return toRun
  }

  /** Approves the open approval of a call, with the edits and grant asked for; `false` when none is open. */
  approve(toolCallId: string, { editedArgs, grant }: ApproveOptions): boolean {
    const entry = this.#openApproval(toolCallId)
    if (entry) this.answer(entry, { ...answerOf(entry.interrupt), approved: true, ...(editedArgs === undefined ? {} : { editedArgs }), ...(grant ? { grant } : {}) })
    return entry !== undefined
  }

  /** Denies the open approval of a call, with the user's reason for the model; `false` when none is open. */
  deny(toolCallId: string, reason: string | undefined): boolean {
    const entry = this.#openApproval(toolCallId)
    if (entry) this.answer(entry, { ...answerOf(entry.interrupt), approved: false, ...(reason === undefined ? {} : { reason }) })
    return entry !== undefined
  }

  /** The approval of a call, if it is asked and this client has not answered it. */
  #openApproval(toolCallId: string): Entry | undefined {
    for (const entry of this.#entries.values()) {
      const { interrupt } = entry
      if (interrupt.toolCallId === toolCallId && interrupt.reason === 'tool_approval' && !entry.answered) return entry
    }
    return undefined
  }

  /** Records an answer: the call shows it (approved and running, denied, or the tool's outcome), and it waits to be sent. */
  answer(waiting: Waiting, answer: ResumeAnswer): void {
    const draft = this.#draft()
    if (!isApproval(answer)) draft.settle(waiting.call, outcomeOf(answer))
    else if (answer.approved) draft.approve(waiting.call, 'editedArgs' in answer ? { value: answer.editedArgs } : undefined)
    else draft.settle(waiting.call, { status: 'denied', reason: answer.reason })
    ;(waiting as Entry).answered = true
    this.#outbox.push(answer)
  }

  /** Approvals the server did not take (a refused resume, or one never sent) can be answered again. Results wait for a `load()`. */
  reopen(answers: readonly ResumeAnswer[]): void {
    const draft = this.#draft()
    for (const answer of answers) {
      const entry = this.#entries.get(answer.interruptId)
      if (!entry || !isApproval(answer)) continue
      entry.answered = false
      draft.askApproval(entry.call, entry.interrupt.input, askedApproval(entry.interrupt, this.#user))
    }
  }

  /** Takes back the approvals not yet sent, open again; results not yet sent wait for the next request. */
  withdraw(): void {
    this.reopen(this.#outbox)
    this.#outbox = this.#outbox.filter((answer) => !isApproval(answer))
  }

  /**
   * The user sent a message instead: the server cancels every interrupt of the pause (approvals,
   * even approved ones not yet run, and client tools without a result) but denials and results the
   * browser gave. Marked so here at once; the server's result (with its decision record) replaces it.
   */
  supersede(): void {
    const draft = this.#draft()
    for (const { interrupt, call, answered } of this.#entries.values()) {
      if (call.state === 'denied' || (answered && interrupt.reason === 'client_tool')) continue
      draft.settle(call, { status: 'cancelled' }, undefined, true)
    }
    this.#entries.clear()
  }

  /** Whether answers wait to be sent. */
  get unsent(): boolean {
    return this.#outbox.length > 0
  }

  /** Takes every answer not yet sent, to send in one request. */
  take(): ResumeAnswer[] {
    const answers = this.#outbox
    this.#outbox = []
    return answers
  }

  /** Drops the queued answers the thread no longer waits for (read again after a `load()`). */
  retain(interrupts: readonly ToolInterrupt[]): void {
    this.#outbox = this.#outbox.filter((answer) => interrupts.some((interrupt) => interrupt.id === answer.interruptId))
  }

  /** The run resumed, a new one began, or the thread was read again: this pause is over. */
  clear(): void {
    this.#entries.clear()
  }

  /** The interrupts the run paused on, answered here or not: the thread waits on them until the server says otherwise. */
  interrupts(): ToolInterrupt[] {
    return [...this.#entries.values()].map((entry) => entry.interrupt)
  }

  /** The calls the pause waits on (those of the interrupts in `except` excepted): nothing else ends them. */
  waitingCalls(except?: ReadonlyMap<string, unknown>): Set<string> {
    const calls = new Set<string>()
    for (const [id, { interrupt }] of this.#entries) if (!except?.has(id)) calls.add(interrupt.toolCallId)
    return calls
  }
}

/**
 * Whom an approval answers: the interrupt, and for a subagent's call its subagent run, which the
 * server checks (`SUBAGENT_MISMATCH`), so an answer never decides another subagent's call.
 */
function answerOf({ id, subagentRunId }: ToolInterrupt): { readonly interruptId: string; readonly subagentRunId?: string } {
  return subagentRunId === undefined ? { interruptId: id } : { interruptId: id, subagentRunId }
}

/** The interrupt with its `path` only if it is one (each hop names its agent, call and subagent run): it is shown, and parts are built from it. */
function withCheckedPath(interrupt: ToolInterrupt): ToolInterrupt {
  const { path } = interrupt
  if (path === undefined) return interrupt
  const hop = (value: unknown) => isRecord(value) && typeof value.agent === 'string' && typeof value.toolCallId === 'string' && typeof value.subagentRunId === 'string'
  if (Array.isArray(path) && path.length > 0 && path.every(hop)) return interrupt
  const { path: _malformed, ...rest } = interrupt
  return rest
}

function isApproval(answer: ResumeAnswer): answer is Extract<ResumeAnswer, { approved: boolean }> {
  return 'approved' in answer
}

/** How a call ended once its client tool returned, or failed. */
function outcomeOf(result: ClientToolResult): CallOutcome {
  return 'output' in result ? { status: 'success', output: result.output } : { status: 'error', error: result.error }
}

/** Who the page is signed in as (`ChatClientOptions.user`). */
type Viewer = NonNullable<ChatClientOptions['user']>

function askedApproval(interrupt: ToolInterrupt, user: Viewer | undefined): ToolApproval {
  const inputSchema = approvalInputSchema(interrupt.responseSchema)
  return {
    ...(interrupt.message === undefined ? {} : { reason: interrupt.message }),
    ...(inputSchema === undefined ? {} : { inputSchema }),
    ...(interrupt.expiresAt === undefined ? {} : { expiresAt: interrupt.expiresAt }),
    ...(interrupt.reviewers === undefined ? {} : { waitingFor: waitingFor(interrupt, interrupt.reviewers, user), reviewers: interrupt.reviewers }),
    ...(interrupt.requestedBy === undefined ? {} : { requestedBy: interrupt.requestedBy }),
    ...(interrupt.approvals === undefined ? {} : { approvals: interrupt.approvals }),
    ...(interrupt.proposedBy === undefined ? {} : { proposedBy: interrupt.proposedBy }),
    ...(interrupt.metadata?.grantable ? { grantable: true } : {}),
    ...(interrupt.path ? { path: [...interrupt.path.map((hop) => hop.agent), interrupt.toolName] } : {}),
    ...(isRecord(interrupt.delegation) && Array.isArray(interrupt.delegation.tools) ? { delegation: interrupt.delegation } : {}),
  }
}

/**
 * Whom the call waits for, in the words the chat shows after "waits for": `you` when the signed-in
 * user may decide it (a reviewer, not its requester, not one who approved already), else the
 * reviewers: `finance`, `carol or dave`, `2 reviewers (finance)`.
 */
function waitingFor(interrupt: ToolInterrupt, { roles = [], users = [], required = 1 }: NonNullable<ToolInterrupt['reviewers']>, user: Viewer | undefined): string {
  const approvals = interrupt.approvals ?? []
  const reviewer = user !== undefined && (users.includes(user.id) || roles.some((role) => user.roles?.includes(role)))
  if (reviewer && interrupt.requestedBy?.id !== user.id && !approvals.some((approval) => approval.by.id === user.id)) return 'you'
  const names = [...roles, ...users].join(' or ') || 'no one (the approval policy names no reviewer)'
  const left = required - approvals.length
  return left > 1 ? `${left} reviewers (${names})` : names
}

/** The tool's input schema out of an approval's `responseSchema` (see `ToolInterrupt.responseSchema`). */
function approvalInputSchema(responseSchema: unknown): JsonSchema | undefined {
  const defs = isRecord(responseSchema) ? responseSchema.$defs : undefined
  const input = isRecord(defs) ? defs.input : undefined
  if (!isRecord(input)) return undefined
  const { $id: _id, ...schema } = input
  return schema
}
