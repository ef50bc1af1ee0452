import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'redis'

// Throwaway real servers for the store tests: started in a temp dir on a free port, stopped after.
// A missing binary fails the test with what to install; nothing is skipped.

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export interface RedisServer {
  readonly url: string
  stop(): Promise<void>
  /** Stops the server (its data goes: it keeps none on disk) and starts a new one on the same port, as a crash and restart would. */
  restart(): Promise<void>
  /** Stops the server; `up` starts a new one on the same port. */
  down(): Promise<void>
  up(): Promise<void>
  /** SIGSTOP: the server holds its connections and answers nothing until `thaw`. */
  freeze(): void
  thaw(): void
}

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server'

/**
 * `appendOnly`: the server logs every write to disk, so a restart keeps the data (as a deployment's would).
 * `cluster`: a Redis Cluster of this one node, holding every slot: a command or script whose keys
 * span slots fails with CROSSSLOT, as on any cluster (a standalone client reaches all its keys).
 */
export async function startRedis(options: { appendOnly?: boolean; cluster?: boolean } = {}): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is missing: run "npm run setup:services" (it installs Debian's redis-server)`)
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-redis-'))
  const port = await freePort()
  const launch = async () => {
    const cluster = options.cluster ? ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'] : []
    const started = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...(options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']), ...cluster, '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
    await waitForOutput(started, /Ready to accept connections/, 'redis-server')
    if (options.cluster) await holdEverySlot(`redis://127.0.0.1:${port}`)
    return started
  }
  let child = await launch()
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGCONT')
      await stopChild(child)
      rmSync(dir, { recursive: true, force: true })
    },
    restart: async () => {
      child.kill('SIGCONT')
      await stopChild(child)
      child = await launch()
    },
    down: async () => {
      child.kill('SIGCONT')
      await stopChild(child)
    },
    up: async () => {
      child = await launch()
    },
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
  }
}

/** Gives a cluster's only node every slot (kept in its nodes.conf across a restart), and waits until the cluster serves them. */
async function holdEverySlot(url: string): Promise<void> {
  const client = await createClient({ url }).connect()
  try {
    await client.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', '0', '16383']).catch((error: Error) => {
      if (!/already busy/.test(error.message)) throw error
    })
    for (let tries = 0; !/cluster_state:ok/.test(String(await client.sendCommand(['CLUSTER', 'INFO']))); tries++) {
      if (tries === 200) throw new Error('the one-node Redis Cluster did not come up')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  } finally {
    await client.quit()
  }
}

export function waitForOutput(child: ChildProcess, pattern: RegExp, name: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (pattern.test(output)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code}:\n${output}`))
    })
  })
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}
