import { describe, expect, it } from 'vitest'
import { backoff, retry, sleep } from '../../src/util/retry.ts'

describe('retry', () => {
  it('tries again until the task succeeds, waiting as the policy says', async () => {
    const waits: number[] = []
    let calls = 0
    const value = await retry(
      async (attempt) => {
        calls++
        if (attempt < 3) throw new Error(`fail ${attempt}`)
        return 'ok'
      },
      { attempts: 5, delay: (attempt) => (waits.push(attempt), 1) },
    )
    expect(value).toBe('ok')
    expect(calls).toBe(3)
    expect(waits).toEqual([1, 2])
  })

  it('rethrows the last failure once the attempts are spent', async () => {
    let calls = 0
    await expect(retry(async (attempt) => ((calls++), Promise.reject(new Error(`fail ${attempt}`))), { attempts: 3, delay: () => 0 })).rejects.toThrow('fail 3')
    expect(calls).toBe(3)
  })

  it('rethrows at once an error the policy does not retry', async () => {
    let calls = 0
    const fatal = new Error('fatal')
    await expect(retry(async () => ((calls++), Promise.reject(fatal)), { attempts: 5, delay: () => 0, retryable: (error) => error !== fatal })).rejects.toBe(fatal)
    expect(calls).toBe(1)
  })

  it('starts no attempt past `until`', async () => {
    let calls = 0
    await expect(retry(async () => ((calls++), Promise.reject(new Error('down'))), { attempts: Infinity, delay: () => 50, until: Date.now() + 60 })).rejects.toThrow('down')
    expect(calls).toBe(2)
  })

  it('stops waiting when its signal aborts, with the signal\'s reason', async () => {
    const controller = new AbortController()
    const stopped = new Error('stopped')
    const trying = retry(async () => Promise.reject(new Error('down')), { attempts: Infinity, delay: () => 60_000, signal: controller.signal })
    setTimeout(() => controller.abort(stopped), 5)
    await expect(trying).rejects.toBe(stopped)
  })
})

describe('backoff and sleep', () => {
  it('doubles from the first pause up to the cap', () => {
    const delay = backoff(100, 500)
    expect([1, 2, 3, 4].map(delay)).toEqual([100, 200, 400, 500])
  })

  it('sleep rejects at once on an aborted signal', async () => {
    await expect(sleep(10, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone')
  })
})
