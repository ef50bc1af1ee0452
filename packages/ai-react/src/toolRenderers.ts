import { createElement, useSyncExternalStore, type ComponentType, type ReactNode } from 'react'
import type { AnyTool, InferToolName } from '@toolgate/ai'
import type { ToolCallPart, ToolCallPartFor, UserRequest, UserRequests } from '@toolgate/ai/client'

/**
 * A component per tool name, each receiving the call's part narrowed to its tool: typed input
 * (partial while it streams), approval, output, error, state. For generative UI: a weather card,
 * a diff before a destructive call, a picker a client tool waits on.
 */
export type ToolRenderers<TTools extends readonly AnyTool[]> = {
  readonly [TName in InferToolName<TTools[number]>]?: ComponentType<{ readonly part: ToolCallPartFor<Extract<TTools[number], { readonly name: TName }>> }>
}

/** The part rendered by its tool's renderer, or by `fallback` for tools without one. */
export function renderToolCall<const TTools extends readonly AnyTool[]>(
  part: ToolCallPart<TTools>,
  renderers: ToolRenderers<TTools>,
  fallback?: ComponentType<{ readonly part: ToolCallPart<TTools> }>,
): ReactNode {
  const renderer = (renderers as Record<string, ComponentType<{ readonly part: unknown }> | undefined>)[part.toolName]
  if (renderer) return createElement(renderer, { key: part.toolCallId, part })
  return fallback ? createElement(fallback, { key: part.toolCallId, part }) : null
}

/** The open request of a client tool call that waits for the user (see `userRequests`), re-rendering as it opens and closes. */
export function useUserRequest<TInput, TOutput>(requests: UserRequests<TInput, TOutput>, toolCallId: string): UserRequest<TInput, TOutput> | undefined {
  useSyncExternalStore(requests.subscribe, requests.getSnapshot, requests.getSnapshot)
  return requests.request(toolCallId)
}
