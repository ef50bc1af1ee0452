import type { ResumeAnswer } from '../../../protocol/requests.ts'
import { HttpError } from '../../errors.ts'
import type { ToolResultMessage } from './runAgentInput.ts'
import type { OpenStep, StoredAnswer } from '../../thread/threadStore.ts'
import { deepEqual } from '../../../util/deepEqual.ts'

// AG-UI answers a frontend tool call with a `tool` message in the next `RunAgentInput`, not a resume
// entry. Such a message is the same answer as `resume` gives (`output` or `error`), aimed by call id
// instead of interrupt id: the ones for calls the open step waits on the browser for become answers
// and go through `checkAnswers` like any others. The rest are history (clientHistory.ts compares
// them with the thread), except a message aimed at a call the browser was never handed.

/** The answers among `messages`, in order, with the message each came from (for its path). */
export interface ToolMessageAnswers {
  readonly answers: readonly ResumeAnswer[]
  readonly from: readonly ToolResultMessage[]
}

/**
 * Picks out the `tool` messages that answer calls `step` waits on the browser for (not those
 * `resumed` answers in the same request). One aimed at a call waiting for approval or running on
 * the server is refused (422 `ANSWER_MISMATCH`), one for a
 * call already answered in this step 409 `INTERRUPT_ALREADY_ANSWERED` (unless it restates that answer), each at `messages[i]`.
 */
export function toolMessageAnswers(
  step: OpenStep | undefined,
  messages: readonly ToolResultMessage[],
  resumed: readonly ResumeAnswer[] = [],
  /** A new user message comes with them: it settles every approval anyway (superseded). */
  superseding = false,
): ToolMessageAnswers {
  // Some clients (TanStack AI) send their own record of an answer they give through `resume`, or gave before: not an answer.
  const byResume = new Set(resumed.map((answer) => answer.interruptId))
  const answers: ResumeAnswer[] = []
  const from: ToolResultMessage[] = []
  for (const message of messages) {
    const path = `messages[${message.index}]`
    const call = step?.message.toolCalls.find((candidate) => candidate.id === message.toolCallId)
    if (!step || !call || step.results.some((result) => result.toolCallId === call.id)) continue // history
    const interrupt = step.interrupts.find((candidate) => candidate.toolCallId === call.id)
    // The call of an agent tool whose subagent waits: a client that shows the subagent's approvals on it (TanStack AI) sends its record of them.
    const delegated = interrupt ? [] : step.interrupts.filter((candidate) => candidate.path?.[0]?.toolCallId === call.id)
    if (delegated.length > 0) {
      if (delegated.some((candidate) => byResume.has(candidate.id) || candidate.answer || superseding)) continue
      throw mismatch(`Tool call "${call.id}" of "${call.name}" runs a subagent that waits: answer its interrupts with \`resume\`, not a tool message`, path)
    }
    if (!interrupt) throw mismatch(`Tool call "${call.id}" of "${call.name}" runs on the server: its result is not the client's to give`, path)
    if (byResume.has(interrupt.id) || (interrupt.reason === 'tool_approval' && (interrupt.answer || superseding))) continue
    if (interrupt.reason !== 'client_tool') {
      throw mismatch(`Tool call "${call.id}" of "${call.name}" waits for approval: answer interrupt "${interrupt.id}" with \`resume\`, not a tool message`, path)
    }
    if (interrupt.answer && restates(interrupt.answer, message.answer)) continue
    if (interrupt.answer) throw new HttpError(409, 'INTERRUPT_ALREADY_ANSWERED', `Tool call "${call.id}" is already answered`, `${path}.toolCallId`)
    answers.push({ interruptId: interrupt.id, ...message.answer })
    from.push(message)
  }
  return { answers, from }
}

/** The step with each answer from a message marked so (its result keeps the message's id). */
export function markAnsweredByMessage(step: OpenStep, answered: ToolMessageAnswers): OpenStep {
  const ids = new Map(answered.answers.map((answer, index) => [answer.interruptId, answered.from[index]!.id]))
  return {
    ...step,
    interrupts: step.interrupts.map((interrupt) => {
      const messageId = ids.get(interrupt.id)
      if (messageId === undefined || !interrupt.answer || interrupt.answer.kind === 'approval') return interrupt
      return { ...interrupt, answer: { ...interrupt.answer, messageId } }
    }),
  }
}

/**
 * A refusal of `checkAnswers`, which names `resume[k]`, moved to the message it came from when the
 * answer was the `k - offset`th from a tool message (`resume` entries come first).
 */
export function atMessagePath(error: unknown, offset: number, answered: ToolMessageAnswers): unknown {
  if (!(error instanceof HttpError) || error.path === undefined) return error
  const match = /^resume\[(\d+)\](\.interruptId|\.output|\.error)?/.exec(error.path)
  const message = match ? answered.from[Number(match[1]) - offset] : undefined
  if (!match || !message) return error
  const field = match[2] === '.interruptId' ? '.toolCallId' : match[2] === '.output' ? '.content' : match[2] === '.error' ? '.error' : ''
  return new HttpError(error.status, error.code, error.message, `messages[${message.index}]${field}`)
}

/** A tool message giving the answer the step already holds for its call: the client's record of it (TanStack AI sends one with its next request), not a second answer. */
function restates(held: StoredAnswer, given: ToolResultMessage['answer']): boolean {
  if (held.kind === 'output') return 'output' in given && deepEqual(held.output, given.output)
  return held.kind === 'error' && 'error' in given && held.error === given.error
}

function mismatch(message: string, path: string): HttpError {
  return new HttpError(422, 'ANSWER_MISMATCH', message, path)
}
