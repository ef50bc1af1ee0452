import { describe, expectTypeOf, it } from 'vitest'
import type { ChatInit, UIMessage } from 'ai'
import type { AiSdkThread } from '@toolgate/ai/protocol'

describe('GET ?format=ai-sdk, at compile time', () => {
  it("hydrates useChat: the thread's messages are the AI SDK's UIMessage[]", () => {
    expectTypeOf<AiSdkThread['messages']>().toExtend<UIMessage[]>()
    expectTypeOf<AiSdkThread['messages']>().toExtend<NonNullable<ChatInit<UIMessage>['messages']>>()
  })
})
