import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react'
import type { AnyTool } from '@toolgate/ai'
import type { ChatClient, ChatState } from '@toolgate/ai/client'

/**
 * Subscribes to the part of a chat that `selector` picks: the component renders only when that
 * part changes (by `isEqual`, `Object.is` by default). Selected values keep their identity while
 * equal, so they can be passed to memoised children. The selector may be an inline function.
 *
 * @example
 * const status = useChatSelector(client, (state) => state.status)
 */
export function useChatSelector<TTools extends readonly AnyTool[], TSelected>(
  client: ChatClient<TTools>,
  selector: (state: ChatState<TTools>) => TSelected,
  isEqual: (a: TSelected, b: TSelected) => boolean = Object.is,
): TSelected {
  // The value last rendered, so a new selector function does not give equal values a new identity.
  const rendered = useRef<{ value: TSelected } | undefined>(undefined)
  const getSelection = useMemo(() => {
    let memo: { state: ChatState<TTools>; value: TSelected } | undefined
    return (): TSelected => {
      const state = client.getSnapshot()
      if (memo?.state === state) return memo.value
      const previous = memo ?? rendered.current
      const next = selector(state)
      const value = previous && isEqual(previous.value, next) ? previous.value : next
      memo = { state, value }
      return value
    }
  }, [client, selector, isEqual])
  const value = useSyncExternalStore(client.subscribe, getSelection, getSelection)
  useEffect(() => {
    rendered.current = { value }
  }, [value])
  return value
}
