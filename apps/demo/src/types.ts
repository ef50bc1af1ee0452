import type { ChatMessage, PendingApproval, ToolCallPart } from '@toolgate/ai/client'
import type { UseChatResult } from '@toolgate/ai-react'
import type { chatTools } from './clientTools.ts'

export type DemoTools = typeof chatTools
export type DemoMessage = ChatMessage<DemoTools>
export type DemoToolCall = ToolCallPart<DemoTools>
export type DemoApproval = PendingApproval<DemoTools>
export type DemoChat = UseChatResult<DemoTools>
