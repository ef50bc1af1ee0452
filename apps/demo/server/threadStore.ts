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
    return { store: redisStore({ client }), label: `Redis at ${redact(env.REDIS_URL)}` }
  }
  if (env.DATABASE_URL) {
    const [{ default: pg }, { postgresStore }] = await Promise.all([import('pg'), import('@toolgate/ai/server/postgres')])
    const store = postgresStore({ pool: new pg.Pool({ connectionString: env.DATABASE_URL }) })
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
