import { useMemo, useSyncExternalStore } from 'react'
import type { AnyTool } from '@toolgate/ai'
import type { ChatClient, ChatClientOptions, ChatState } from '@toolgate/ai/client'
import { useChatClient } from './useChatClient.ts'

export interface UseChatResult<TTools extends readonly AnyTool[]> extends ChatState<TTools> {
  readonly send: ChatClient<TTools>['send']
  readonly stop: ChatClient<TTools>['stop']
  readonly approve: ChatClient<TTools>['approve']
  readonly deny: ChatClient<TTools>['deny']
  readonly load: ChatClient<TTools>['load']
  /** The client itself, stable across renders: hand it to `useChatSelector` in child components. */
  readonly client: ChatClient<TTools>
}

/**
 * A chat in a component: the client's state (`messages`, `status`, `error`, `pendingApprovals`,
 * `threadId`) and its methods. The component renders at most once per animation frame while
 * tokens stream; messages that did not change keep their identity, so `memo` children skip them.
 * For finer subscriptions, pass `client` to `useChatSelector`.
 */
export function useChat<const TTools extends readonly AnyTool[] = readonly AnyTool[]>(
  options: ChatClientOptions<TTools>,
): UseChatResult<TTools> {
  const client = useChatClient(options)
  const state = useSyncExternalStore(client.subscribe, client.getSnapshot, client.getSnapshot)
  return useMemo(
    () => ({
      ...state,
      send: client.send,
      stop: client.stop,
      approve: client.approve,
      deny: client.deny,
      load: client.load,
      client,
    }),
    [client, state],
  )
}
