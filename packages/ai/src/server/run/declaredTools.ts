import type { ModelTool } from '../../model/chatModel.ts'
import type { ThreadMessage } from '../../protocol/messages.ts'
import type { StepRun } from './stepRun.ts'
import type { ToolSearch } from '../../tools/toolSearch.ts'

/**
 * The tools a model call is told of under a tool search (without one, all of them:
 * `config.tools.modelTools`, chosen by the caller, with nothing to wait for): the tools that fit
 * the latest user message, best first, then every tool already called in the thread or waiting on
 * an interrupt (a model must still see the tools whose calls and results it reads), and the AG-UI
 * frontend tools accepted for the request.
 */
export async function searchedTools(run: StepRun, toolSearch: ToolSearch): Promise<readonly ModelTool[]> {
  const { tools } = run.config
  const picked = new Set((await toolSearch.select(latestUserText(run.messages))).map((tool) => tool.name))
  for (const message of run.messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls) picked.add(call.name)
  }
  for (const interrupt of run.head.step?.interrupts ?? []) picked.add(interrupt.toolName)
  // The client's own tools the app accepted for this request are not the search's to pick.
  for (const name of run.config.frontendTools) picked.add(name)
  const byName = new Map(tools.modelTools.map((tool) => [tool.name, tool]))
  return [...picked].flatMap((name) => byName.get(name) ?? [])
}

function latestUserText(messages: readonly ThreadMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!
    if (message.role === 'user') return message.content
  }
  return ''
}
