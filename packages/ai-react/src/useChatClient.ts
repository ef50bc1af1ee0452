import { useEffect, useInsertionEffect, useRef, useState } from 'react'
import type { AnyTool } from '@toolgate/ai'
import { createChatClient, type ChatClient, type ChatClientOptions } from '@toolgate/ai/client'

/**
 * Creates a chat client (`createChatClient`) once per component and keeps it: the same instance, and the same bound
 * methods, on every render. Options are read when it is created, except the callbacks, which
 * always call the latest ones given, and `threadId`: a new one loads that thread.
 * Unmounting stops the client's stream and its client tools.
 */
export function useChatClient<const TTools extends readonly AnyTool[] = readonly AnyTool[]>(
  options: ChatClientOptions<TTools>,
): ChatClient<TTools> {
  const latest = useRef(options)
  useInsertionEffect(() => {
    latest.current = options
  })
  const [client] = useState(
    () =>
      createChatClient<TTools>({
        ...options,
        onError: (error) => latest.current.onError?.(error),
        onToolCall: (call) => latest.current.onToolCall?.(call),
      }),
  )

  const { threadId } = options
  useEffect(() => {
    // A thread id the client reached itself (its first message started the thread) needs no load.
    if (threadId !== undefined && (threadId !== client.getSnapshot().threadId || client.getSnapshot().messages.length === 0)) {
      void client.load(threadId)
    }
  }, [client, threadId])
  useEffect(() => () => client.stop(), [client])
  return client
}
