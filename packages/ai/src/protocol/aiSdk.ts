import type { RunFailure, ThreadStatus } from './thread.ts'

// The AI SDK's UI messages as the chat endpoint hands them out (`GET ?threadId=&format=ai-sdk`) and
// reads them back: written out here, types only, so neither side loads `ai`. They are assignable to
// `ai`'s `UIMessage` (versions 6 and 7; a type test checks it) and mutable, as `useChat({ messages })`
// takes them.

/** What the server keeps in a part's provider metadata: the stored message it comes from, the interrupt it waits on. */
export type AiSdkPartMetadata = {
  toolgate: {
    /** The stored assistant message (a model step) the text or call belongs to. */
    messageId?: string
    /** A browser tool's call: the interrupt its output answers. */
    interruptId?: string
    /** A call's result as stored (set on results the server sent). */
    resultId?: string
    /** The server holds this call's answer while others of its batch wait: a request that repeats it does not answer again. */
    answered?: true
    /** The user stopped the run while this step streamed or its tools ran: its text and calls were cut short. */
    stopped?: true
    /** A subagent's call (`agentTool`): it belongs to no stored message of the thread, and is never compared with one. */
    subagentRunId?: string
  }
}

/** A server call waiting for approval: why, as the tool's `needsApproval` policy said (`part.toolMetadata`). */
export type AiSdkToolMetadata = {
  toolgate: { approvalReason: string }
}

/**
 * A call of tool `name` (`type` is `tool-<name>`), in the states the server hands out: waiting
 * (`input-available`: a browser tool to run, or a server call under way), waiting for a person
 * (`approval-requested`, whose `approval.id` is the interrupt's), or settled.
 */
export type AiSdkToolPart = {
  type: `tool-${string}`
  toolCallId: string
  input: unknown
  providerExecuted?: boolean
  callProviderMetadata?: AiSdkPartMetadata
  toolMetadata?: AiSdkToolMetadata
} & (
  | { state: 'input-available' }
  | { state: 'approval-requested'; approval: { id: string } }
  | { state: 'approval-responded'; approval: { id: string; approved: boolean; reason?: string } }
  | { state: 'output-available'; output: unknown; resultProviderMetadata?: AiSdkPartMetadata }
  | { state: 'output-error'; errorText: string; resultProviderMetadata?: AiSdkPartMetadata }
  | { state: 'output-denied'; approval: { id: string; approved: false; reason?: string } }
)

export type AiSdkUIPart =
  | { type: 'text'; text: string; state?: 'streaming' | 'done'; providerMetadata?: AiSdkPartMetadata }
  | { type: 'reasoning'; text: string; state?: 'streaming' | 'done' }
  | { type: 'file'; mediaType: string; url: string; filename?: string }
  | { type: 'step-start' }
  | AiSdkToolPart

/** A message as the AI SDK's `useChat` holds it. */
export interface AiSdkUIMessage {
  id: string
  role: 'user' | 'assistant'
  parts: AiSdkUIPart[]
}

/**
 * `GET ?threadId=&format=ai-sdk`: the stored thread as `useChat({ id, messages })` takes it after a
 * reload. `TMessage` is the app's own `UIMessage` type when it types its tools' parts (the server
 * sends what the tools' schemas allow).
 */
export interface AiSdkThread<TMessage = AiSdkUIMessage> {
  readonly threadId: string
  readonly status: ThreadStatus
  readonly messages: TMessage[]
  /**
   * How the last run failed, when it did and nothing ran since (the snapshot's `lastRunError`).
   * `useChat` takes no error to start with, and no `UIMessage` part holds one: show it beside the
   * messages, as the live page showed `useChat`'s `error`. The next message clears it.
   */
  readonly lastRunError?: RunFailure
}
