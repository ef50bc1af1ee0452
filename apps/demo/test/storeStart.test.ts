import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort, startRedis, type RedisServer } from '../../../packages/ai/test/services/redis.ts'

// The demo's server process as a user starts it, against a real redis-server started and stopped
// here: what it prints when its store cannot be reached, at start and while running.

const demoDir = fileURLToPath(new URL('..', import.meta.url))
const started: ChildProcess[] = []
const servers: RedisServer[] = []
afterEach(async () => {
  for (const child of started.splice(0)) child.kill()
  for (const server of servers.splice(0)) await server.stop()
})

/** The demo's server with `env`; its output as it comes. */
async function demo(env: Record<string, string>) {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@toolgate/source', 'server/main.ts'], {
    cwd: demoDir,
    env: { ...process.env, PORT: String(port), REDIS_URL: '', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  started.push(child)
  const output = { stdout: '', stderr: '' }
  child.stdout!.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { port, output, exited }
}

const lines = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line))

describe('the demo with a store it cannot reach', () => {
  it('a malformed REDIS_URL is one line naming the variable, and the process ends', async () => {
    const { output, exited } = await demo({ REDIS_URL: 'redis//localhost:6379' })
    expect(await exited).toBe(1)
    expect(output.stderr.trim()).toBe('[demo] REDIS_URL is not a URL (expected redis://[user:password@]host:port[/…]); unset it to keep threads in memory')
  }, 30_000)

  it('at start: one line naming REDIS_URL and the address without its password, tried again until Redis is up; then it serves', async () => {
    const redis = await startRedis()
    servers.push(redis)
    await redis.down()
    const url = new URL(redis.url)
    // The default user of a redis-server without a password takes any (ACL `nopass`): the URL carries one, as a deployment's does.
    url.username = 'default'
    url.password = 'hunter2-secret'
    const { port, output } = await demo({ REDIS_URL: url.toString() })
    await expect.poll(() => output.stderr, { timeout: 15_000 }).toContain(`[demo] Cannot reach Redis at redis://default:***@${url.host} (REDIS_URL): ECONNREFUSED.`)
    expect(output.stdout).not.toContain('running at')

    await redis.up()
    await expect.poll(() => output.stdout, { timeout: 30_000 }).toContain(`Toolgate demo running at http://127.0.0.1:${port}/`)
    expect(output.stdout).toContain(`threads in Redis at redis://default:***@${url.host}`)
    expect(lines(output.stderr, /Cannot reach/)).toHaveLength(1)
    expect(output.stderr).toMatch(/\(REDIS_URL\) is back after \d+ failed attempts? in \d+ s\./)
    expect(output.stderr + output.stdout).not.toContain('hunter2-secret')
    expect(output.stderr).not.toMatch(/^\s+at /m) // no stack trace
  }, 60_000)

  it('while running: a stopped Redis is one line per connection when it goes and one when it is back, with a count, never a stack trace each time', async () => {
    const redis = await startRedis()
    servers.push(redis)
    const { port, output } = await demo({ REDIS_URL: redis.url })
    await expect.poll(() => output.stdout, { timeout: 30_000 }).toContain('running at')

    await redis.down()
    await expect.poll(() => lines(output.stderr, /Cannot reach/).length, { timeout: 15_000 }).toBe(2) // the client and the subscriber
    // Requests meanwhile get 503 STORE_ERROR, and nothing more is printed for each failed reconnect.
    const response = await fetch(`http://127.0.0.1:${port}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'hello' }) })
    expect(response.status).toBe(503)
    await redis.up()
    await expect.poll(() => lines(output.stderr, /is back after/).length, { timeout: 30_000 }).toBe(2)
    expect(lines(output.stderr, /Cannot reach/)).toHaveLength(2)
    expect(output.stderr).not.toMatch(/^\s+at /m)
  }, 60_000)
})
