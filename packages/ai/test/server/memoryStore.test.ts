import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryStore, type Thread } from '@toolgate/ai/server'

const thread = (id: string): Thread => ({ id, messages: [], resolvedInterruptIds: [], createdAt: 0, updatedAt: 0 })

describe('memoryStore', () => {
  afterEach(() => vi.useRealTimers())

  it('is a compare-and-set on the version', async () => {
    const store = memoryStore()
    expect(await store.put(thread('a'), 0)).toBe(true)
    expect(await store.put(thread('a'), 0)).toBe(false)
    expect(await store.put(thread('a'), 1)).toBe(true)
    expect(await store.get('a')).toMatchObject({ version: 2, thread: { id: 'a' } })
  })

  it('forgets the least recently used thread beyond maxThreads', async () => {
    const store = memoryStore({ maxThreads: 2 })
    await store.put(thread('a'), 0)
    await store.put(thread('b'), 0)
    await store.get('a') // a is now the most recently used
    await store.put(thread('c'), 0)
    expect(await store.get('b')).toBeUndefined()
    expect(await store.get('a')).toBeDefined()
    expect(await store.get('c')).toBeDefined()
  })

  it('forgets a thread left idle longer than idleTtlMs', async () => {
    vi.useFakeTimers()
    const store = memoryStore({ idleTtlMs: 1000 })
    await store.put(thread('a'), 0)
    vi.advanceTimersByTime(500)
    expect(await store.get('a')).toBeDefined()
    vi.advanceTimersByTime(1001)
    expect(await store.get('a')).toBeUndefined()
    expect(await store.put(thread('a'), 1)).toBe(false)
  })

  it('refuses nonsense bounds', () => {
    expect(() => memoryStore({ maxThreads: 0 })).toThrow(TypeError)
  })
})
