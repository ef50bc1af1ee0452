import type { ThreadToolMessage } from '../protocol/messages.ts'
import { randomId } from '../util/randomId.ts'

/** Which call a result answers. */
export interface CallRef {
  readonly toolCallId: string
  readonly toolName: string
}

export const SUPERSEDED_REASON = 'the user sent a new message instead'

/** The tool's output, as JSON for the model; `editedArgs` makes the result say the user changed the call. */
export function successResult(call: CallRef, output: unknown, editedArgs?: unknown): ThreadToolMessage {
  let json: string
  try {
    json = JSON.stringify(output) ?? 'null'
  } catch (error) {
    return errorResult(call, `Tool "${call.toolName}" returned a value that is not JSON (${(error as Error).message})`)
  }
  const edited = editedArgs !== undefined
  const content = edited
    ? `The user edited the arguments before approving; the call ran with ${JSON.stringify(editedArgs)}.\nResult: ${json}`
    : json
  return {
    role: 'tool',
    id: randomId('msg_'),
    ...ref(call),
    content,
    status: 'success',
    output: JSON.parse(json),
    ...(edited ? { edited: true } : {}),
  }
}

export function errorResult(call: CallRef, error: string): ThreadToolMessage {
  return { role: 'tool', id: randomId('msg_'), ...ref(call), content: error, status: 'error' }
}

export function deniedResult(call: CallRef, reason: string | undefined): ThreadToolMessage {
  const given = reason?.trim() ? reason.trim() : undefined
  return {
    role: 'tool',
    id: randomId('msg_'),
    ...ref(call),
    content: `denied by the user: ${given ?? 'no reason given'}`,
    status: 'denied',
    ...(given === undefined ? {} : { reason: given }),
  }
}

/** Only the reference: callers pass richer objects (an execution carries its tool and input), which must not be stored. */
function ref({ toolCallId, toolName }: CallRef): CallRef {
  return { toolCallId, toolName }
}
