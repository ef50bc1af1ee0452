import type { AnyTool } from '../tools/types.ts'
import { ChatClient as Client } from './ChatClient.ts'
import type { ChatClientOptions } from './options.ts'

/**
 * A chat as an external store: `subscribe` and `getSnapshot` let any framework bind it, and the
 * snapshot is immutable and the same object until something changes. Every method is bound, so it
 * can be passed around as is. The async ones resolve once the client has nothing left to do by
 * itself (the run finished, or paused for the user) and never reject: failures land in `error`.
 * Made by `createChatClient`.
 */
export interface ChatClient<TTools extends readonly AnyTool[] = readonly AnyTool[]> extends Client<TTools> {}

/**
 * Creates a chat client; the tools given type every part. The one way to make one. Options are
 * checked here, so a typo fails at construction with an `InvalidOptionError` naming the option,
 * not at the first message.
 */
export function createChatClient<const TTools extends readonly AnyTool[] = readonly AnyTool[]>(
  options: ChatClientOptions<TTools>,
): ChatClient<TTools> {
  return new Client(options)
}

