import type { Principal } from '../../protocol/decisions.ts'
import type { ChatConfig } from '../options.ts'

// Whose context a resumed run has: the requester's, whoever approved. A tool that acts as
// `ctx.context.user` must do what the person who asked may do, not what the reviewer may (a
// confused deputy otherwise). Who approved, and how, reaches the tool beside it (`ctx.decision`).

/**
 * The context of a call's requester, for a run resumed by `answerer`. Their own request serves
 * when they answer themselves (`own`, the chat); anyone else's decision (a reviewer in the chat, a
 * review link, `handler.decide`) gets the app's `requesterContext` for them, resolved once per
 * requester however often a compare-and-set retries.
 */
export function requesterContext(config: ChatConfig, answerer: Principal | undefined, own?: () => Promise<unknown>): (requester: Principal) => Promise<unknown> {
  const resolved = new Map<string, Promise<unknown>>()
  return (requester) => {
    let context = resolved.get(requester.id)
    if (!context) {
      context = own && answerer && requester.id === answerer.id ? own() : config.resolveRequesterContext(requester)
      resolved.set(requester.id, context)
    }
    return context
  }
}
