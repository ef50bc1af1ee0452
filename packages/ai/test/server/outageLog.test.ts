import { afterEach, describe, expect, it, vi } from 'vitest'
import { createClient } from 'redis'
import { redisStore } from '@toolgate/ai/server/redis'
import { startRedis, type RedisServer } from '../services/redis.ts'

// A store's default `onError` against a real Redis stopped and started again: node-redis emits an
// error on every reconnect attempt; the log holds one line when the outage starts and one with the
// count when the connection is back, never a stack trace per attempt.

let redis: RedisServer | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await redis?.stop()
})

describe('redisStore without onError', () => {
  it('logs each outage of a connection once, then its end with the count of failed attempts', async () => {
    redis = await startRedis()
    const logged: string[] = []
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')))
    const client = await createClient({ url: redis.url, socket: { reconnectStrategy: () => 50 } }).connect()
    redisStore({ client })

    await redis.down()
    await expect.poll(() => logged.length, { timeout: 10_000 }).toBeGreaterThan(0)
    // Reconnect attempts go on meanwhile (every 50 ms here), each an `error` event.
    await new Promise((resolve) => setTimeout(resolve, 500))
    await redis.up()
    await expect.poll(() => logged.some((line) => line.includes('is back after')), { timeout: 15_000 }).toBe(true)

    expect(logged, JSON.stringify(logged)).toHaveLength(2)
    expect(logged[0]).toMatch(/^\[toolgate\] redisStore: connection failed \(\w+( \w+)?\); trying again, and requests get 503 STORE_ERROR until it is back$/)
    expect(logged[1]).toMatch(/^\[toolgate\] redisStore: connection is back after (\d+) failed attempts in \d+ s$/)
    expect(Number(/after (\d+)/.exec(logged[1]!)![1])).toBeGreaterThan(1)
    await client.quit()
  }, 60_000)
})
