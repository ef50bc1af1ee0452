import type { JsonSchema } from '../schema/types.ts'
import type { ProviderMetadata, ThreadAttachment, ThreadMessage } from '../protocol/messages.ts'

/** A tool as declared to a model. */
export interface ModelTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: JsonSchema
}

export interface ModelRequest {
  /** The thread's history, oldest first, in the neutral message shape. */
  readonly messages: readonly ThreadMessage[]
  readonly tools: readonly ModelTool[]
  /** Aborted when the client goes away; a model stops streaming on it. */
  readonly signal: AbortSignal
  /**
   * The bytes of a file a tool returned (`ThreadToolMessage.attachments`, by `id`), for adapters
   * whose provider takes images or documents in tool results. `undefined` when it is gone; an
   * adapter then keeps the text line the message already carries.
   */
  readonly loadAttachment?: (attachment: ThreadAttachment) => Promise<{ readonly data: Uint8Array; readonly mediaType: string } | undefined>
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'other'

export interface ModelUsage {
  /** Every input token, cached ones included. */
  readonly inputTokens?: number
  /** Every output token, reasoning ones included. */
  readonly outputTokens?: number
  /** Input tokens read from the provider's prompt cache. */
  readonly cachedInputTokens?: number
  /** Output tokens spent on reasoning. */
  readonly reasoningTokens?: number
}

/** What a model streams. Tool-call chunks are tied together by `toolCallId`. */
export type ModelChunk =
  | { readonly type: 'text-delta'; readonly delta: string }
  | { readonly type: 'tool-call-start'; readonly toolCallId: string; readonly toolName: string }
  | { readonly type: 'tool-call-delta'; readonly toolCallId: string; readonly delta: string }
  | { readonly type: 'tool-call-end'; readonly toolCallId: string; readonly providerMetadata?: ProviderMetadata }
  /** Visible reasoning text as it streams (shown to the user; not stored: the `reasoning` chunk is). */
  | { readonly type: 'reasoning-delta'; readonly delta: string }
  /** A finished reasoning block, stored with the step and handed back to the model with the history. */
  | { readonly type: 'reasoning'; readonly text: string; readonly providerMetadata?: ProviderMetadata }
  | { readonly type: 'finish'; readonly reason: FinishReason; readonly usage?: ModelUsage }

/**
 * Any model the chat handler can drive; provider adapters implement this. A model speaks the
 * tools' own names and argument shapes, both ways: the runtime validates, streams and stores
 * calls exactly as yielded. An adapter whose provider needs other names or schemas (strict mode)
 * declares the tools in its dialect and maps each call back before yielding it, as the adapters
 * of `@toolgate/ai/providers` do; history comes to it in the tools' own terms too.
 */
export interface ChatModel {
  /** A label for usage reports (AG-UI `TokenUsage.model`). */
  readonly name?: string
  stream(request: ModelRequest): AsyncIterable<ModelChunk>
}
