// The conversation as the client holds it: a mutable draft that events edit through named transitions
// and that hands out immutable snapshots, the UI types (`parts.ts`) those snapshots are made of, and
// the incremental parser of streamed arguments (loaded with the call-reading chunk: `chunks/`).
export { ThreadDraft, type CallOutcome, type MessageDraft, type ToolCallDraft } from './threadDraft.ts'
export { applyEvent } from './applyEvent.ts'
export type * from './parts.ts'
