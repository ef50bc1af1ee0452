import { ToolValidationError } from '../errors.ts'
import type { ResumeAnswer } from '../protocol/requests.ts'
import { formatIssuePath } from '../schema/formatIssues.ts'
import { validateToolInput } from '../tools/validateToolValue.ts'
import { HttpError } from './errors.ts'
import { capText } from './limits.ts'
import type { PendingBatch, PendingInterrupt, StoredAnswer, Thread } from './threadStore.ts'
import type { Toolset } from './toolset.ts'

/**
 * Checks answers against the thread's pending interrupts and stores them on it. All or nothing:
 * one bad answer refuses the whole request and the thread is left as it was.
 */
export async function recordAnswers(
  thread: Thread,
  answers: readonly ResumeAnswer[],
  toolset: Toolset,
  maxReasonLength: number,
): Promise<Thread> {
  const byId = new Map((thread.pending?.interrupts ?? []).map((interrupt) => [interrupt.id, interrupt]))
  for (const [index, answer] of answers.entries()) {
    const path = `resume[${index}]`
    const interrupt = byId.get(answer.interruptId)
    if (!interrupt) throw notPending(thread, answer.interruptId, path)
    if (interrupt.answer) throw alreadyAnswered(answer.interruptId, path)
    byId.set(interrupt.id, { ...interrupt, answer: await checkAnswer(interrupt, answer, path, toolset, maxReasonLength) })
  }
  return { ...thread, pending: { ...thread.pending!, interrupts: [...byId.values()] } }
}

/**
 * A resume for a batch whose run was lost (`lostBatch`): its answers are stored already and apply
 * as stored, so the request's own are not applied again; each must still name an interrupt of the batch.
 */
export function checkReplay(thread: Thread, batch: PendingBatch, answers: readonly ResumeAnswer[]): void {
  for (const [index, { interruptId }] of answers.entries()) {
    if (!batch.interrupts.some((interrupt) => interrupt.id === interruptId)) throw notPending(thread, interruptId, `resume[${index}]`)
  }
}

async function checkAnswer(
  interrupt: PendingInterrupt,
  answer: ResumeAnswer,
  path: string,
  toolset: Toolset,
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
    if ('editedArgs' in answer) await checkEditedArgs(interrupt, answer.editedArgs, `${path}.editedArgs`, toolset)
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
async function checkEditedArgs(interrupt: PendingInterrupt, editedArgs: unknown, path: string, toolset: Toolset): Promise<void> {
  const entry = toolset.get(interrupt.toolName)
  if (!entry) return // the tool is gone; the call will fail with a clear result when the batch resumes
  try {
    await validateToolInput(entry.tool, editedArgs)
  } catch (error) {
    if (!(error instanceof ToolValidationError)) throw error
    const first = error.issues[0]?.path
    const where = first && first.length > 0 ? `${path}${/^\[/.test(formatIssuePath(first)) ? '' : '.'}${formatIssuePath(first)}` : path
    throw new HttpError(422, 'INVALID_EDITED_ARGS', error.message, where)
  }
}

function notPending(thread: Thread, interruptId: string, path: string): HttpError {
  if (thread.resolvedInterruptIds.includes(interruptId)) return alreadyAnswered(interruptId, path)
  return new HttpError(404, 'INTERRUPT_NOT_FOUND', `Thread has no pending interrupt "${interruptId}"`, `${path}.interruptId`)
}

function alreadyAnswered(interruptId: string, path: string): HttpError {
  return new HttpError(409, 'INTERRUPT_ALREADY_ANSWERED', `Interrupt "${interruptId}" is already answered`, `${path}.interruptId`)
}

function mismatch(message: string, path: string): HttpError {
  return new HttpError(422, 'ANSWER_MISMATCH', message, path)
}
