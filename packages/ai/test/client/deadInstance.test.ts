import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createChatClient, type ChatClientOptions } from '@toolgate/ai/client'
import { startRedis, stopChild, waitForOutput, type RedisServer } from '../services/redis.ts'
import { texts } from './helpers.ts'

// The page that followed a run live when the run's instance died shows what a page loaded
// afterwards shows: two chat servers share a Redis behind one address; the one streaming the reply
// is killed (SIGKILL) mid-text, and the client's next request reaches the other, which continues the
// turn from the stored thread (which never held the dead run's half-streamed text).

const packageDir = fileURLToPath(new URL('../..', import.meta.url))
const serverScript = fileURLToPath(new URL('../services/chatServer.ts', import.meta.url))

let redis: RedisServer
const children: ChildProcess[] = []
beforeAll(async () => {
  redis = await startRedis()
}, 30_000)
afterAll(async () => {
  await Promise.all(children.map(stopChild))
  await redis?.stop()
})

async function instance(): Promise<{ child: ChildProcess; url: string }> {
  const env = { ...process.env, REDIS_URL: redis.url, TOOL_LOG: '/dev/null', PREFIX: 'deadInstance:' }
  const child = spawn(process.execPath, ['--conditions=@toolgate/source', '--import', 'tsx', serverScript], { cwd: packageDir, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let url = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    const port = /listening (\d+)/.exec(chunk.toString())?.[1]
    if (port) url = `http://127.0.0.1:${port}/`
  })
  await waitForOutput(child, /listening \d+/, 'chat server', 30_000)
  return { child, url }
}

it('a run whose instance dies mid-text: the live page drops the dead run\'s half text once the turn continues, and shows what a reload shows', async () => {
  const [a, b] = await Promise.all([instance(), instance()])
  // One address for both, as behind a load balancer: A until it dies, then B.
  let behind = a
  const fetch: NonNullable<ChatClientOptions['fetch']> = (input, init) => globalThis.fetch(String(input).replace('http://chat/', behind.url), init)
  const client = createChatClient({ endpoint: 'http://chat/', fetch, scheduleNotify: (flush) => flush() })
  const shown = new Set<string>()
  const halfShown = new Promise<void>((resolve) =>
    client.subscribe(() => {
      for (const text of texts(client.getSnapshot())) shown.add(text)
      if (texts(client.getSnapshot()).some((text) => text.includes('part 5. '))) resolve()
    }),
  )
  const sent = client.send('tell a story')
  await halfShown
  a.child.kill('SIGKILL')
  await new Promise((resolve) => a.child.once('exit', resolve))
  behind = b
  await sent

  const story = Array.from({ length: 60 }, (_, i) => `part ${i}. `).join('')
  const live = client.getSnapshot()
  expect(live).toMatchObject({ status: 'idle', error: undefined })
  // The page showed the dead run's half text while it streamed; it is gone now: the reply once, whole.
  expect([...shown].some((text) => text.startsWith('assistant: part 0. ') && text !== `assistant: ${story}`)).toBe(true)
  expect(texts(live)).toEqual(['user: tell a story', `assistant: ${story}`])
  const reloaded = createChatClient({ endpoint: b.url, threadId: live.threadId! })
  await reloaded.load()
  expect(reloaded.getSnapshot().messages).toEqual(live.messages)
}, 60_000)
