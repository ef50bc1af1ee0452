import { expect, it } from 'vitest'
import { scriptedModel } from '@toolgate/ai/server/testing'
import { clientOn, texts } from './helpers.ts'

// An app's listener that throws is the app's bug, reported as a browser reports an event
// listener's: uncaught, in a task of its own. The client's own work goes on: the other listeners
// hear every change, and the command resolves.

const model = scriptedModel([{ when: /hello/i, reply: 'Hi there.' }])

/**
 * Runs `body` with this process's uncaught exceptions caught as an app's own handler would catch
 * them (the test runner's handlers set aside meanwhile, and put back after).
 */
async function catchingUncaught(body: () => Promise<void>): Promise<unknown[]> {
  const caught: unknown[] = []
  const runner = process.listeners('uncaughtException')
  process.removeAllListeners('uncaughtException')
  const handler = (error: unknown) => void caught.push(error)
  process.on('uncaughtException', handler)
  try {
    await body()
    // Reports go out in tasks of their own: let the last ones come.
    await new Promise((resolve) => setTimeout(resolve, 20))
    return caught
  } finally {
    process.removeListener('uncaughtException', handler)
    for (const listener of runner) process.on('uncaughtException', listener)
  }
}

for (const [name, scheduleNotify] of [
  ['notified at once', (flush: () => void) => flush()],
  ['notified once per batch (the default away from a page)', undefined],
] as const) {
  it(`a listener that throws leaves the others notified and the command resolved (${name}); its error is reported uncaught`, async () => {
    const failure = new Error('the app’s listener failed')
    const caught = await catchingUncaught(async () => {
      const client = clientOn({ model }, scheduleNotify ? { scheduleNotify } : { scheduleNotify: (flush) => setTimeout(flush, 0) })
      client.subscribe(() => {
        throw failure
      })
      const heard: string[] = []
      client.subscribe(() => heard.push(client.getSnapshot().status))
      const sent = client.send('hello').then(() => 'resolved' as const)
      const outcome = await Promise.race([sent, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 3000))])
      expect(outcome).toBe('resolved')
      expect(texts(client.getSnapshot())).toEqual(['user: hello', 'assistant: Hi there.'])
      expect(client.getSnapshot().error).toBeUndefined()
      expect(heard.at(-1)).toBe('idle')
    })
    expect(caught.length).toBeGreaterThan(0)
    expect(caught.every((error) => error === failure)).toBe(true)
  })
}
