import type { ChatConfig } from '../../options.ts'
import { HttpError } from '../../errors.ts'
import type { ClientThread } from '../../claim/intent.ts'
import { checkClientHistory } from './clientHistory.ts'
import type { AguiFields } from './runAgentInput.ts'
import { atMessagePath, markAnsweredByMessage, toolMessageAnswers } from './toolMessages.ts'

// What an AG-UI client adds to a claim (claim/intent.ts): it picks the thread id, sends the
// conversation as it sees it (checked against the thread, never taken: clientHistory.ts), answers
// frontend calls with `tool` messages (toolMessages.ts), and holds messages by id, which a run
// that starts with the stored thread keeps in place.

export function clientThread(config: ChatConfig, input: AguiFields): ClientThread {
  const { history, messageId } = input
  const toolMessages = input.toolMessages ?? []
  return {
    choosesThreadId: true,
    ...(messageId === undefined ? {} : { messageId }),
    endsWithAnswer: input.endsWithTool === true,
    ...(history ? { checkHistory: (thread) => checkClientHistory(config, thread, history) } : {}),
    answersFrom: (step, resumed, superseding) => {
      const answered = toolMessageAnswers(step, toolMessages, resumed, superseding)
      return {
        answers: answered.answers,
        mark: (marked) => markAnsweredByMessage(marked, answered),
        at: (error, offset) => atMessagePath(error, offset, answered),
      }
    },
    repeated: () => {
      const last = toolMessages.at(-1)
      return new HttpError(409, 'INTERRUPT_ALREADY_ANSWERED', `Tool call "${last?.toolCallId}" is already answered`, `messages[${last?.index}].toolCallId`)
    },
    heldIds: (userId) => {
      const ids = (history ?? []).flatMap((message) => (message.id === undefined ? [] : [message.id]))
      return userId !== undefined && userId === messageId ? [...ids, userId] : ids
    },
  }
}
