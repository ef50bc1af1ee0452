import type { ThreadMessage } from '../../protocol/messages.ts'
import type { ChatConfig } from '../options.ts'
import { loadMessages } from './thread.ts'
import type { ThreadHead } from './threadStore.ts'

// The stored messages a head counts, from this instance's cache (thread/threadCache.ts) when `head`
// is the very head it kept, else read. The cache proves only what its messages are; whether the
// head is still the thread's, only the store knows (another instance may have written since, or the
// thread gone and been made again under its id). So `head` must be one the store gave (a head just
// read, whose equality with the kept one is a reader's proof) or one a claim proves (its commit
// `follows` it: thread/cachedClaim.ts). Nothing read here is kept: the cache holds the threads this
// instance wrote, and a reader's miss would only push them out.

/** The stored messages `head` counts, `from` to `to` (the whole history by default). */
export function storedHistory(config: ChatConfig, head: ThreadHead, from = 0, to = head.messageCount): Promise<readonly ThreadMessage[]> {
  const cached = config.threadCache?.history(head)
  if (cached) return Promise.resolve(from === 0 && to === head.messageCount ? cached : cached.slice(from, to))
  if (from === 0 && to === head.messageCount) return loadMessages(config.store, head)
  return to > from ? config.store.messages(head.id, from, to) : Promise.resolve([])
}
