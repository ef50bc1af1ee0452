import type { ThreadMessage } from '../../protocol/messages.ts'
import { checkClientHistory } from '../dialects/agui/clientHistory.ts'
import type { AguiFields } from '../edge/requests.ts'
import type { ChatConfig } from '../options.ts'
import type { ThreadChange } from '../thread/thread.ts'
import { storedHistory } from '../thread/storedHistory.ts'
import type { ThreadHead } from '../thread/threadStore.ts'

// What a claim knows of the thread's history: read alongside the claim (or the cache's), so the run
// need not read it again; an AG-UI client's own history checked against it; and the ids of the
// messages that client holds, for the snapshot its run starts with when it was behind.

/**
 * The history read alongside the claim (`undefined` when the read fails: the run reads it again),
 * and an AG-UI client's history checked against that very history: no read of its own, none at all
 * on a cached head. A failed read fails the check.
 */
export async function readAndCheck(config: ChatConfig, head: ThreadHead, body: AguiFields) {
  const messages = storedHistory(config, head)
  const history = messages.catch(() => undefined)
  const snapshot = body.history ? await checkClientHistory(config, { head, messages }, body.history) : false
  return { history, snapshot }
}

/**
 * The run's history after a claim made of the head `current`: its history, then what the claim
 * appended (kept in the cache, which the run's writes extend); else the run reads it.
 */
export async function historyAfter(
  config: ChatConfig,
  { current, history }: { readonly current: ThreadHead; readonly history: Promise<readonly ThreadMessage[] | undefined> },
  claimed: { readonly head: ThreadHead; readonly previous: ThreadHead; readonly change: ThreadChange },
): Promise<readonly ThreadMessage[] | undefined> {
  if (claimed.previous !== current) return undefined
  const stored = await history
  if (!stored) return undefined
  const messages = [...stored, ...(claimed.change.append ?? [])]
  config.threadCache?.remember(claimed.head, messages)
  return messages
}

/** The ids of the messages an AG-UI client holds, in its order (its new message's, when stored under it). */
export function heldIds(body: AguiFields, userId?: string): string[] {
  const ids = (body.history ?? []).flatMap((message) => (message.id === undefined ? [] : [message.id]))
  return userId !== undefined && userId === body.messageId ? [...ids, userId] : ids
}
