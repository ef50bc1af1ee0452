import type { AnyTool } from '../tools/types.ts'
import { ChatClient } from './ChatClient.ts'
import type { ChatClientOptions } from './options.ts'

/**
 * Creates a chat client; the tools given type every part. The one way to make one. Options are
 * checked here, so a typo fails at construction with an `InvalidOptionError` naming the option,
 * not at the first message.
 */
export function createChatClient<const TTools extends readonly AnyTool[] = readonly AnyTool[]>(
  options: ChatClientOptions<TTools>,
): ChatClient<TTools> {
  return new ChatClient(options)
}
