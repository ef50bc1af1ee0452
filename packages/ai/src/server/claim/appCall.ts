import type { ThreadAssistantMessage, ThreadMessage } from '../../protocol/messages.ts'
import type { AppCallRequest } from '../../protocol/requests.ts'
import type { ToolApp } from '../../tools/app.ts'
import { randomId } from '../../util/randomId.ts'
import { echoed } from '../../util/capText.ts'
import { HttpError, messageTooLarge, threadBusy, threadFull } from '../errors.ts'
import { jsonBytes } from '../../util/jsonBytes.ts'
import type { ChatConfig } from '../options.ts'
import type { ClaimedRun } from '../run/startRun.ts'
import { isRunning, loadHead } from '../thread/thread.ts'
import { storedHistory } from '../thread/storedHistory.ts'
import type { ThreadHead } from '../thread/threadStore.ts'
import { claimForAppCall, storedSize } from '../thread/transitions.ts'
import { updateThread } from '../thread/writer/index.ts'
import { newRunId } from './runId.ts'
import { visibleTo } from '../../tools/toolRegistry.ts'

// An MCP App's own `tools/call` (`POST { threadId, appCall }`), carried through the chat: the view
// of a call of this thread asks, for whoever may write the thread, a server tool of this handler
// that apps may see. The call becomes a step of the thread, planned as a model's calls are
// (validated, approved by a person when the tool asks, recorded), and the run ends with its result.

/** The app a call of the thread renders: the call must be in the thread, and its tool one of this handler's with an app. */
export async function appOfCall(config: ChatConfig, head: ThreadHead, toolCallId: string, messages?: readonly ThreadMessage[]): Promise<ToolApp> {
  const stored = messages ?? (await storedHistory(config, head))
  const name = callName([...stored, ...(head.step ? [head.step.message] : [])], toolCallId)
  const app = name === undefined ? undefined : config.tools.get(name)?.app
  if (!app) throw new HttpError(404, 'MCP_APP_NOT_FOUND', `No call "${echoed(toolCallId)}" of thread "${head.id}" renders an MCP App`, 'toolCallId')
  return app
}

/** Claims the thread for an app's call: the run plans it as a step of its own (run/driveRun.ts). */
export async function appCall(config: ChatConfig, request: Request, body: AppCallRequest): Promise<ClaimedRun> {
  const { threadId, appCall: asked } = body
  const entry = config.tools.get(asked.name)
  // Only server tools: a browser tool would run in the chat's page, not the app's. A tool whose app says `visibility: ['model']` is the model's alone.
  if (!entry?.handler || !visibleTo(entry.tool, 'app')) {
    throw new HttpError(403, 'TOOL_NOT_FOR_APPS', `MCP Apps may not call "${echoed(asked.name)}"`, 'appCall.name')
  }
  const runId = newRunId(config.eventLog, threadId)
  const read = await loadHead(config, request, threadId, 'write')
  // The asking view must be one this thread shows: an app of another thread, or a forged call id, is refused.
  await appOfCall(config, read, asked.toolCallId)
  const by = await config.identify(request)
  const context = await config.resolveContext(request)
  const call: ThreadAssistantMessage = { role: 'assistant', id: randomId('msg_'), content: '', toolCalls: [{ id: randomId('call_'), name: asked.name, arguments: JSON.stringify(asked.arguments) }] }
  const { maxThreadMessages, maxThreadBytes, maxMessageBytes, runLeaseMs } = config.limits
  // The call is stored as a message: held to a message's size and to the thread's, as a user's is.
  const bytes = jsonBytes(call)
  if (bytes > maxMessageBytes) throw messageTooLarge(bytes, maxMessageBytes, 'appCall.arguments')
  const { head, change } = await updateThread(
    config.store,
    threadId,
    (current) => {
      // Nothing runs or waits: the app's call is a step of its own, never mixed into another.
      if (isRunning(current, runLeaseMs) || current.step) throw threadBusy()
      if (storedSize(current) + 2 > maxThreadMessages) throw threadFull(`${maxThreadMessages} messages`)
      if (current.bytes + bytes > maxThreadBytes) throw threadFull(`${maxThreadBytes} bytes`)
      return claimForAppCall(current, { runId, call, by, now: Date.now() })
    },
    read,
  )
  return { request, kind: 'app_call', runId, head, context, start: change.start }
}

function callName(messages: readonly ThreadMessage[], toolCallId: string): string | undefined {
  for (const message of messages) {
    if (message.role !== 'assistant') continue
    for (const call of message.toolCalls) if (call.id === toolCallId) return call.name
  }
  return undefined
}
