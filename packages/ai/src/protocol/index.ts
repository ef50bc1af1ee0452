/** @module @toolgate/ai/protocol */
/**
 * The chat wire protocol, shared by `@toolgate/ai/server` and browser clients. Types only: no
 * runtime code and no dependencies, so importing it costs a browser bundle nothing.
 */
export type {
  RunEvent,
  TokenUsage,
  ToolResultMetadata,
} from './events.ts'
export type { AgUiInterrupt, AgUiRunOutcome, InterruptReason, RunOutcome, ToolInterrupt } from './interrupts.ts'
export type { DevtoolsInterrupt, DevtoolsRun, DevtoolsSnapshot } from './devtools.ts'
export type {
  ProviderMetadata,
  ThreadAttachment,
  ThreadMessage,
  ThreadReasoning,
  ThreadToolCall,
  ToolResultStatus,
} from './messages.ts'
export type {
  PostRequest,
  ResumeAccepted,
  ResumeAnswer,
  ReviewAccepted,
  ReviewView,
  StopAccepted,
} from './requests.ts'
export type { RecordedAnswer, RunFailure, ThreadSnapshot, ThreadStatus, ThreadWindow } from './thread.ts'
export type { ErrorBody, ErrorCode } from './errors.ts'
export type { Decision, DecisionChannel, DecisionRecord, DecisionSummary, Grant, GrantRequest, Principal, Reviewers } from './decisions.ts'
export type { ChatCapabilities } from './capabilities.ts'
export type { AiSdkPartMetadata, AiSdkThread, AiSdkToolMetadata, AiSdkToolPart, AiSdkUIMessage, AiSdkUIPart } from './aiSdk.ts'
