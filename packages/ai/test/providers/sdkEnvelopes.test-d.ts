import { describe, expectTypeOf, it } from 'vitest'
import type { ChatCompletionTool } from 'openai/resources/chat/completions'
import type { FunctionTool } from 'openai/resources/responses/responses'
import type { Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages'
import type { FunctionDeclaration } from '@google/genai'
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import type { ProviderToolMap } from '@toolgate/ai/providers'

// Each envelope `toProviderTool` returns is assignable, unchanged, to the official SDK's own type
// of that envelope: no cast between our output and a user's SDK call.

describe('provider envelopes fit the official SDK types', () => {
  it('openai: Chat Completions and Responses tools', () => {
    expectTypeOf<ProviderToolMap['openai-chat']>().toExtend<ChatCompletionTool>()
    expectTypeOf<ProviderToolMap['openai-responses']>().toExtend<FunctionTool>()
  })
  it('@anthropic-ai/sdk: Messages tools', () => {
    expectTypeOf<ProviderToolMap['anthropic']>().toExtend<AnthropicTool>()
  })
  it('@google/genai: function declarations in both dialects', () => {
    expectTypeOf<ProviderToolMap['gemini']>().toExtend<FunctionDeclaration>()
    expectTypeOf<ProviderToolMap['gemini-json-schema']>().toExtend<FunctionDeclaration>()
  })
  it('@modelcontextprotocol/sdk: tools/list entries', () => {
    expectTypeOf<ProviderToolMap['mcp']>().toExtend<McpTool>()
  })
})
