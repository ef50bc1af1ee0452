import { describe, expect, it } from 'vitest'
import * as v from 'valibot'
import { InvalidOptionError, toolDefinition } from '@toolgate/ai'
import { createChatClient, type ChatClientOptions } from '@toolgate/ai/client'

const tool = toolDefinition({ name: 'get_time', description: 'The time', inputSchema: v.object({}) })

function refusal(options: unknown): InvalidOptionError {
  try {
    createChatClient(options as ChatClientOptions)
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError)
    return error as InvalidOptionError
  }
  throw new Error('expected createChatClient to refuse the options')
}

describe('createChatClient options', () => {
  it('names the option that is wrong, at construction', () => {
    expect(refusal(undefined).option).toBe('options')
    expect(refusal({}).option).toBe('endpoint')
    expect(refusal({ endpoint: ' ' }).option).toBe('endpoint')
    expect(refusal({ endpoint: '/chat', threadId: '' }).option).toBe('threadId')
    expect(refusal({ endpoint: '/chat', tools: tool }).option).toBe('tools')
    expect(refusal({ endpoint: '/chat', tools: [tool, { name: 1 }] }).option).toBe('tools[1]')
    expect(refusal({ endpoint: '/chat', tools: [tool, tool] }).message).toBe('createChatClient(): `tools[1]` repeats the tool name "get_time"')
    expect(refusal({ endpoint: '/chat', fetch: 'no' }).option).toBe('fetch')
    expect(refusal({ endpoint: '/chat', onError: {} }).option).toBe('onError')
    expect(refusal({ endpoint: '/chat', scheduleNotify: 1 }).option).toBe('scheduleNotify')
  })

  it('accepts valid options', () => {
    const client = createChatClient({ endpoint: '/chat', tools: [tool], threadId: 't1', fetch: globalThis.fetch })
    expect(client.getSnapshot()).toMatchObject({ threadId: 't1', status: 'idle', messages: [] })
  })
})
