import { memoryStore, type ThreadStore } from '@toolgate/ai/server'

/**
 * Where the demo keeps threads: Redis with REDIS_URL, PostgreSQL with DATABASE_URL, else this
 * process's memory. With a shared store, several demo processes serve the same threads. The
 * client libraries load only when asked for.
 */
export async function threadStore(env: NodeJS.ProcessEnv): Promise<{ store: ThreadStore; label: string }> {
  if (env.REDIS_URL) {
    const [{ createClient }, { redisStore }] = await Promise.all([import('redis'), import('@toolgate/ai/server/redis')])
    const client = createClient({ url: env.REDIS_URL })
    client.on('error', (error: unknown) => console.error('[demo] Redis:', error))
    await client.connect()
    // Pub/sub needs a connection of its own: it wakes a reconnecting browser's reader on this
    // instance when the other instance writes the run's events.
    const subscriber = client.duplicate()
    subscriber.on('error', (error: unknown) => console.error('[demo] Redis subscriber:', error))
    await subscriber.connect()
    return { store: redisStore({ client, subscriber }), label: `Redis at ${redact(env.REDIS_URL)}` }
  }
  if (env.DATABASE_URL) {
    const [{ default: pg }, { postgresStore }] = await Promise.all([import('pg'), import('@toolgate/ai/server/postgres')])
    // LISTEN needs a connection of its own, outside the pool; the store connects it again after a restart.
    const listener = async () => {
      const client = new pg.Client({ connectionString: env.DATABASE_URL })
      await client.connect()
      return client
    }
    const store = postgresStore({ pool: new pg.Pool({ connectionString: env.DATABASE_URL }), listener })
    await store.ensureSchema()
    return { store, label: `PostgreSQL at ${redact(env.DATABASE_URL)}` }
  }
  return { store: memoryStore(), label: 'memory (threads live in this process only)' }
}

/** The URL without its password, for the log. */
function redact(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(unparsable URL)'
  }
}
