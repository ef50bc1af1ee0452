import { describe, expectTypeOf, it } from 'vitest'
import type { ChatInit, UIMessage } from 'ai'
import type { UIThread } from '@toolgate/ai/server'

describe('GET ?format=ai-sdk, at compile time', () => {
  it("hydrates useChat: the thread's messages are the AI SDK's UIMessage[]", () => {
    expectTypeOf<UIThread['messages']>().toExtend<UIMessage[]>()
    expectTypeOf<UIThread['messages']>().toExtend<NonNullable<ChatInit<UIMessage>['messages']>>()
  })
})
