import { ToolValidationError } from '../errors.ts'
import type { ToolInterrupt } from '../protocol/interrupts.ts'
import type { ResumeAnswer } from '../protocol/requests.ts'
import { formatIssuePath } from '../schema/formatIssues.ts'
import type { JsonSchema } from '../schema/types.ts'
import { validateToolInput } from '../tools/validateToolValue.ts'
import { deepFreeze } from '../util/deepFreeze.ts'
import { jsonBytes } from '../util/jsonBytes.ts'
import { randomId } from '../util/randomId.ts'
import { capText } from './config.ts'
import { HttpError, messageTooLarge } from './errors.ts'
import type { OpenStep, PendingInterrupt, StoredAnswer, ThreadHead } from './threadStore.ts'
import type { ToolRegistry } from './toolRegistry.ts'

// Interrupts: a call that waits for a human (`tool_approval`) or the browser (`client_tool`),
// what the wire shows of one, and the answers to them, checked before anything is stored.

/** Which call an interrupt or a result is about. */
export interface CallRef {
  readonly toolCallId: string
  readonly toolName: string
}

/** A human must approve the call before it runs (server tools) or is handed to the browser (client tools). */
export function approvalInterrupt(call: CallRef, input: unknown, message: string | undefined): PendingInterrupt {
  return { id: randomId('int_'), reason: 'tool_approval', ...callRef(call), input, ...(message === undefined ? {} : { message }) }
}

/** The browser runs the call and answers with its result. `edited` carries an approval's edit forward to the result. */
export function clientToolInterrupt(call: CallRef, input: unknown, edited = false): PendingInterrupt {
  return { id: randomId('int_'), reason: 'client_tool', ...callRef(call), input, ...(edited ? { edited: true } : {}) }
}

/** Interrupts stamped with when they stop taking answers (`limits.interruptTtlMs`; 0: never). */
export function withExpiry(interrupts: readonly PendingInterrupt[], ttlMs: number): PendingInterrupt[] {
  if (ttlMs === 0) return [...interrupts]
  const expiresAt = new Date(Date.now() + ttlMs).toISOString()
  return interrupts.map((interrupt) => (interrupt.expiresAt === undefined ? { ...interrupt, expiresAt } : interrupt))
}

/**
 * The interrupt as sent on the wire: stored answers and bookkeeping stay on the server. An approval
 * carries AG-UI's `responseSchema`, the payload it expects, whose `editedArgs` is the tool's input schema.
 */
export function toWire({ id, reason, toolCallId, toolName, input, message, expiresAt }: PendingInterrupt, tools: ToolRegistry): ToolInterrupt {
  const responseSchema = reason === 'tool_approval' ? tools.get(toolName)?.approvalSchema : undefined
  return {
    id,
    reason,
    toolCallId,
    toolName,
    input,
    ...(message === undefined ? {} : { message }),
    ...(responseSchema === undefined ? {} : { responseSchema }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    // The same extras again where strict AG-UI clients keep them (they drop unknown top-level fields).
    metadata: { kind: 'tool_call', toolName, input, ...(message === undefined ? {} : { reason: message }) },
  }
}

/**
 * What answers an approval: `{ approved, editedArgs?, reason? }`. The tool's input schema sits whole
 * under `$defs.input` with an `$id` of its own, so the references inside it resolve as they did at its
 * root; the client takes it back out for the UI (`approval.inputSchema`).
 */
export function approvalResponseSchema(inputSchema: JsonSchema): JsonSchema {
  return deepFreeze({
    type: 'object',
    properties: {
      approved: { type: 'boolean' },
      editedArgs: { $ref: '#/$defs/input' },
      reason: { type: 'string' },
    },
    required: ['approved'],
    additionalProperties: false,
    $defs: { input: { ...inputSchema, $id: APPROVAL_INPUT_ID } },
  })
}

/** The `$id` of the tool's input schema inside an approval's `responseSchema`. */
export const APPROVAL_INPUT_ID = 'urn:toolgate:tool-input'

export function unanswered(step: OpenStep | undefined): PendingInterrupt[] {
  return step ? step.interrupts.filter((interrupt) => interrupt.answer === undefined) : []
}

/** Kept so a replayed answer is told "already answered"; bounded so threads do not grow without end. */
const RESOLVED_KEPT = 200

export function rememberResolved(ids: readonly string[], resolved: readonly PendingInterrupt[]): string[] {
  return [...ids, ...resolved.map((interrupt) => interrupt.id)].slice(-RESOLVED_KEPT)
}

/**
 * Checks answers against the open step's interrupts and returns the step with them stored. All or
 * nothing: one bad answer refuses the whole request and nothing is stored.
 */
export async function recordAnswers(
  head: ThreadHead,
  answers: readonly ResumeAnswer[],
  tools: ToolRegistry,
  limits: { readonly maxReasonLength: number; readonly maxMessageBytes: number },
): Promise<OpenStep> {
  const step = head.step
  const byId = new Map((step?.interrupts ?? []).map((interrupt) => [interrupt.id, interrupt]))
  for (const [index, answer] of answers.entries()) {
    const path = `resume[${index}]`
    const interrupt = byId.get(answer.interruptId)
    if (!interrupt) throw notPending(head, answer.interruptId, path)
    if (interrupt.answer) throw alreadyAnswered(answer.interruptId, path)
    if (interrupt.expiresAt !== undefined && Date.parse(interrupt.expiresAt) <= Date.now()) {
      throw new HttpError(410, 'INTERRUPT_EXPIRED', `Interrupt "${answer.interruptId}" expired at ${interrupt.expiresAt}; send a new message instead`, `${path}.interruptId`)
    }
    const carried = 'output' in answer ? ['output', answer.output] : 'editedArgs' in answer ? ['editedArgs', answer.editedArgs] : undefined
    if (carried) {
      const bytes = jsonBytes(carried[1])
      if (bytes > limits.maxMessageBytes) throw messageTooLarge(bytes, limits.maxMessageBytes, `${path}.${carried[0]}`)
    }
    byId.set(interrupt.id, { ...interrupt, answer: await checkAnswer(interrupt, answer, path, tools, limits.maxReasonLength) })
  }
  return { ...step!, interrupts: [...byId.values()] }
}

/**
 * A resume for a step whose run was lost: its answers are stored already and apply as stored, so
 * the request's own are not applied again; each must still name an interrupt of the step.
 */
export function checkReplay(head: ThreadHead, step: OpenStep, answers: readonly ResumeAnswer[]): void {
  for (const [index, { interruptId }] of answers.entries()) {
    if (!step.interrupts.some((interrupt) => interrupt.id === interruptId)) throw notPending(head, interruptId, `resume[${index}]`)
  }
}

async function checkAnswer(
  interrupt: PendingInterrupt,
  answer: ResumeAnswer,
  path: string,
  tools: ToolRegistry,
  maxReasonLength: number,
): Promise<StoredAnswer> {
  if ('approved' in answer) {
    if (interrupt.reason !== 'tool_approval') {
      throw mismatch(`Interrupt "${interrupt.id}" waits for the result of client tool "${interrupt.toolName}": send \`output\` or \`error\`, not an approval`, path)
    }
    if (!answer.approved) {
      return answer.reason === undefined
        ? { kind: 'approval', approved: false }
        : { kind: 'approval', approved: false, reason: capText(answer.reason, maxReasonLength) }
    }
    if ('editedArgs' in answer) await checkEditedArgs(interrupt, answer.editedArgs, `${path}.editedArgs`, tools)
    return 'editedArgs' in answer ? { kind: 'approval', approved: true, editedArgs: answer.editedArgs } : { kind: 'approval', approved: true }
  }
  if (interrupt.reason !== 'client_tool') {
    throw mismatch(
      `Interrupt "${interrupt.id}" asks to approve tool "${interrupt.toolName}": send \`approved\`; results come only for client tools`,
      path,
    )
  }
  return 'output' in answer ? { kind: 'output', output: answer.output } : { kind: 'error', error: capText(answer.error, maxReasonLength) }
}

/** A human's edit is refused outright when invalid (it is not the model's to correct). */
async function checkEditedArgs(interrupt: PendingInterrupt, editedArgs: unknown, path: string, tools: ToolRegistry): Promise<void> {
  const entry = tools.get(interrupt.toolName)
  if (!entry) return // the tool is gone; the call will fail with a clear result when the step resumes
  try {
    await validateToolInput(entry.tool, editedArgs)
  } catch (error) {
    if (!(error instanceof ToolValidationError)) throw error
    const first = error.issues[0]?.path
    const where = first && first.length > 0 ? `${path}${/^\[/.test(formatIssuePath(first)) ? '' : '.'}${formatIssuePath(first)}` : path
    throw new HttpError(422, 'INVALID_EDITED_ARGS', error.message, where)
  }
}

function notPending(head: ThreadHead, interruptId: string, path: string): HttpError {
  if (head.resolvedInterruptIds.includes(interruptId)) return alreadyAnswered(interruptId, path)
  return new HttpError(404, 'INTERRUPT_NOT_FOUND', `Thread has no pending interrupt "${interruptId}"`, `${path}.interruptId`)
}

function alreadyAnswered(interruptId: string, path: string): HttpError {
  return new HttpError(409, 'INTERRUPT_ALREADY_ANSWERED', `Interrupt "${interruptId}" is already answered`, `${path}.interruptId`)
}

function mismatch(message: string, path: string): HttpError {
  return new HttpError(422, 'ANSWER_MISMATCH', message, path)
}

/** Only the reference: callers pass richer objects (an execution carries its tool and input), which must not be stored. */
export function callRef({ toolCallId, toolName }: CallRef): CallRef {
  return { toolCallId, toolName }
}
