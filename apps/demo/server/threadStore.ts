import { backoff, memoryStore, type ThreadStore } from '@toolgate/ai/server'
import { connectionLog } from './connectionLog.ts'

/** A setting the demo cannot start with: one line for the console, no stack trace. */
export class SettingError extends Error {}

/**
 * Where the demo keeps threads: Redis with REDIS_URL, PostgreSQL with DATABASE_URL, else this
 * process's memory. With a shared store, several demo processes serve the same threads. The
 * client libraries load only when asked for. A store that cannot be reached at start is one line
 * naming the variable and the address (password removed), tried again with backoff until it
 * answers; while running, each outage is one line when it starts and one when it ends, with a count.
 */
export async function threadStore(env: NodeJS.ProcessEnv): Promise<{ store: ThreadStore; label: string }> {
  if (env.REDIS_URL !== undefined) {
    const address = checkedUrl('REDIS_URL', env.REDIS_URL, ['redis:', 'rediss:'])
    const [{ createClient }, { redisStore }] = await Promise.all([import('redis'), import('@toolgate/ai/server/redis')])
    // node-redis tries again by itself, after these pauses: 250 ms, doubling, at most 10 s.
    const reconnectStrategy = (retries: number) => backoff(250, 10_000)(retries + 1)
    const client = createClient({ url: env.REDIS_URL, socket: { reconnectStrategy } })
    const log = connectionLog(`Redis at ${address} (REDIS_URL)`)
    client.on('error', log.failed).on('ready', log.ready)
    await client.connect()
    // Pub/sub needs a connection of its own: it wakes a reconnecting browser's reader on this
    // instance when the other instance writes the run's events.
    const subscriber = client.duplicate()
    const subscriberLog = connectionLog(`Redis at ${address} (REDIS_URL, subscriber)`)
    subscriber.on('error', subscriberLog.failed).on('ready', subscriberLog.ready)
    await subscriber.connect()
    return { store: redisStore({ client, subscriber }), label: `Redis at ${address}` }
  }
  if (env.DATABASE_URL !== undefined) {
    const address = checkedUrl('DATABASE_URL', env.DATABASE_URL, ['postgres:', 'postgresql:'])
    const [{ default: pg }, { postgresStore }] = await Promise.all([import('pg'), import('@toolgate/ai/server/postgres')])
    const log = connectionLog(`PostgreSQL at ${address} (DATABASE_URL)`)
    // LISTEN needs a connection of its own, outside the pool; the store connects it again after a restart.
    const listener = async () => {
      const client = new pg.Client({ connectionString: env.DATABASE_URL })
      client.on('error', log.failed)
      await client.connect()
      return client
    }
    const pool = new pg.Pool({ connectionString: env.DATABASE_URL })
    pool.on('error', log.failed).on('connect', log.ready)
    const store = postgresStore({ pool, listener })
    // The first statement needs the server: tried again with backoff until it answers.
    for (let attempt = 1; ; attempt++) {
      try {
        await store.ensureSchema()
        break
      } catch (error) {
        log.failed(error)
        await new Promise((resolve) => setTimeout(resolve, backoff(250, 10_000)(attempt)))
      }
    }
    return { store, label: `PostgreSQL at ${address}` }
  }
  return { store: memoryStore(), label: 'memory (this process only; set REDIS_URL or DATABASE_URL to share threads)' }
}

/** The URL in `variable`, checked, without its password: what the log and the errors show. */
function checkedUrl(variable: string, value: string, protocols: readonly string[]): string {
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    throw new SettingError(`${variable} is not a URL (expected ${protocols[0]}//[user:password@]host:port[/…]); unset it to keep threads in memory`)
  }
  if (!protocols.includes(parsed.protocol)) throw new SettingError(`${variable} must start with ${protocols.map((protocol) => `${protocol}//`).join(' or ')}, not ${parsed.protocol}//`)
  if (parsed.password) parsed.password = '***'
  return parsed.toString()
}
