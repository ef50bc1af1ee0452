import type { DecisionSummary } from './decisions.ts'
/**
 * The conversation as the server stores it and as a model sees it: a neutral shape that provider
 * adapters map to each provider's own. Every value is plain JSON.
 */

/** A tool call the model made. `arguments` is JSON text, exactly as the model wrote it (or as a user edited it). */
export interface ThreadToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
  /** What the provider needs back with this call in later requests (Gemini's thought signature, say). */
  readonly providerMetadata?: ProviderMetadata
}

/**
 * Data a provider asks to be sent back with the history, keyed by provider (`anthropic`, `openai`,
 * `gemini`): thinking signatures, encrypted reasoning items, thought signatures. Opaque to the
 * runtime, stored as given; an adapter reads only its own key, so a thread can change models.
 */
export type ProviderMetadata = { readonly [provider: string]: { readonly [key: string]: unknown } }

/** A block of the model's reasoning, kept so that providers which need it back (Anthropic thinking, OpenAI reasoning items) get it. */
export interface ThreadReasoning {
  /** The visible reasoning text (empty when the provider keeps it hidden or encrypted). */
  readonly text: string
  readonly providerMetadata?: ProviderMetadata
}

export interface ThreadUserMessage {
  readonly role: 'user'
  readonly id: string
  readonly content: string
}

export interface ThreadAssistantMessage {
  readonly role: 'assistant'
  readonly id: string
  /** The text the model wrote; empty when it only called tools. */
  readonly content: string
  readonly toolCalls: readonly ThreadToolCall[]
  /** The model's reasoning in this step, before its text and calls. */
  readonly reasoning?: readonly ThreadReasoning[]
  /** The user stopped the run while this step streamed or its tools ran: what it says was cut short. */
  readonly stopped?: true
}

/**
 * A file a tool returned, as the thread keeps it: a reference, never the bytes. The shape is
 * AG-UI's binary content part (`type: 'binary'`, `mimeType`, `id` or `url`, `filename`), with
 * `kind` and `size` added. A stored one (`id`) is served by the chat endpoint at
 * `GET ?threadId=<thread>&attachmentId=<id>`.
 */
export interface ThreadAttachment {
  readonly type: 'binary'
  /** What the tool declared it: `image` can be shown inline. */
  readonly kind: 'image' | 'file'
  readonly mimeType: string
  /** The attachment store's id (absent for a URL the tool returned). */
  readonly id?: string
  /** The address the tool returned instead of bytes. */
  readonly url?: string
  readonly filename?: string
  /** Bytes, when stored. */
  readonly size?: number
}

/** How a tool call ended. */
/**
 * How a call ended. `denied`: a person said no (or the user moved on with a new message).
 * `expired`: no one answered its approval in time. `cancelled`: the request was stopped before
 * anyone decided. In the last two the tool did not run, and the model is told so in those words.
 */
export type ToolResultStatus = 'success' | 'error' | 'denied' | 'expired' | 'cancelled'

export interface ThreadToolMessage {
  readonly role: 'tool'
  readonly id: string
  readonly toolCallId: string
  readonly toolName: string
  /** What the model reads: the output as JSON text, or the error text. */
  readonly content: string
  readonly status: ToolResultStatus
  /** The validated output, as JSON (status `success`). */
  readonly output?: unknown
  /** The user's reason (status `denied`), or why the call was cancelled (status `cancelled`). */
  readonly reason?: string
  /** The user edited the arguments before approving; the call in history carries the edited ones. */
  readonly edited?: boolean
  /** Files the tool returned (status `success`), by reference. */
  readonly attachments?: readonly ThreadAttachment[]
  /** Who decided the call, when a person did (or the grant it ran under): the decision record's summary. */
  readonly decision?: DecisionSummary
}

export type ThreadMessage = ThreadUserMessage | ThreadAssistantMessage | ThreadToolMessage
