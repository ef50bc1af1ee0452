import type { ThreadMessage } from '../../protocol/messages.ts'
import type { ChatConfig } from '../options.ts'
import type { ThreadChange } from '../thread/thread.ts'
import { storedHistory } from '../thread/storedHistory.ts'
import type { ThreadHead } from '../thread/threadStore.ts'
import type { ClientThread } from './intent.ts'

// What a claim knows of the thread's history: read alongside the claim (or the cache's), so the run
// need not read it again; a client's own history (an AG-UI client's) checked against it.

/**
 * The history read alongside the claim (`undefined` when the read fails: the run reads it again),
 * and an AG-UI client's history checked against that very history: no read of its own, none at all
 * on a cached head. A failed read fails the check.
 */
export async function readAndCheck(config: ChatConfig, head: ThreadHead, client: ClientThread | undefined) {
  const messages = storedHistory(config, head)
  const history = messages.catch(() => undefined)
  const snapshot = client?.checkHistory ? await client.checkHistory({ head, messages }) : false
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
