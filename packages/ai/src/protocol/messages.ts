/**
 * The conversation as the server stores it and as a model sees it: a neutral shape that provider
 * adapters map to each provider's own. Every value is plain JSON.
 */

/** A tool call the model made. `arguments` is JSON text, exactly as the model wrote it (or as a user edited it). */
export interface ToolCallPart {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

export interface UserMessage {
  readonly role: 'user'
  readonly id: string
  readonly content: string
}

export interface AssistantMessage {
  readonly role: 'assistant'
  readonly id: string
  /** The text the model wrote; empty when it only called tools. */
  readonly content: string
  readonly toolCalls: readonly ToolCallPart[]
}

/** How a tool call ended. */
export type ToolResultStatus = 'success' | 'error' | 'denied'

export interface ToolResultMessage {
  readonly role: 'tool'
  readonly id: string
  readonly toolCallId: string
  readonly toolName: string
  /** What the model reads: the output as JSON text, or the error text. */
  readonly content: string
  readonly status: ToolResultStatus
  /** The validated output, as JSON (status `success`). */
  readonly output?: unknown
  /** The user's reason (status `denied`). */
  readonly reason?: string
  /** The user edited the arguments before approving; the call in history carries the edited ones. */
  readonly edited?: boolean
}

export type ChatMessage = UserMessage | AssistantMessage | ToolResultMessage
