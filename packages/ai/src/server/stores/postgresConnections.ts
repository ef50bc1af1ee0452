import type { ThreadHead } from '../thread/threadStore.ts'

// What the PostgreSQL store asks of its client beyond `query`: node-postgres' named statements, and
// a pipelining Pool's connections, on which a run's commits follow one another.

/**
 * What the store needs of a Postgres client: node-postgres' `query(text, values)`. A `pg` Pool,
 * PGlite and Neon's serverless driver all fit; the store never imports one.
 */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[] }>
  /** A `pg` Pool emits `'error'` when an idle connection drops; the store listens (unless you do), so a restart of the server does not crash the process. */
  on?(event: 'error', listener: (error: unknown) => void): unknown
  listenerCount?(event: 'error'): number
}

const nothing = () => {}

/** A node-postgres Pool's `connect()`: a connection of the pool's held until released. */
interface PgPool {
  connect(): Promise<PgPoolClient>
}

interface PgPoolClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: any[] }>
  /** With an error (or `true`), the pool closes the connection instead of keeping it. */
  release(error?: Error | boolean): void
  on(event: 'error', listener: (error: Error) => void): unknown
  removeListener(event: 'error', listener: (error: Error) => void): unknown
}

/** A run's chain of commits on one connection, each written behind the last. */
export interface ConnectionChain {
  send(head: ThreadHead, text: string, values: unknown[]): Promise<{ rows: any[] }>
}

/**
 * Commits of a run that follow one another, on one connection of a node-postgres Pool that
 * pipelines: a commit asked while the one it follows is unanswered is written behind it on that
 * one's connection, which the server reads in order, so it lands after it. (On two connections
 * the server may take the second first: its check of the head it follows refuses it, and it must
 * be sent again, a round trip more; 20-40% of releases were.) The connection is taken at a chain's
 * first commit and given back once every commit on it is answered, so a chain holds it no longer
 * than `pool.query` would hold one per commit; one that failed is given back to be closed, and
 * every commit on it fails as a commit whose answer was lost does (each lands whole or not at all).
 */
export function connectionChains(pool: PgPool, named: boolean) {
  const byHead = new WeakMap<ThreadHead, ConnectionChain>()
  return {
    /** The chain of a commit not yet answered. */
    of: (head: ThreadHead) => byHead.get(head),
    open(): ConnectionChain {
      let connecting: Promise<PgPoolClient> | undefined
      let pending = 0
      let failure: unknown
      const failed = (error: unknown) => void (failure ??= error ?? new Error('connection failed'))
      const chain: ConnectionChain = {
        send(head, text, values) {
          pending++
          byHead.set(head, chain)
          connecting ??= pool.connect().then((client) => {
            client.on('error', failed)
            return client
          })
          const config = named ? { name: statementName(text), text, values } : { text, values }
          const answer = connecting.then((client) => client.query(config))
          const settled = () => {
            byHead.delete(head)
            if (--pending > 0) return
            connecting!.then(
              (client) => {
                client.removeListener('error', failed)
                client.release(failure === undefined ? undefined : failure instanceof Error ? failure : true)
              },
              nothing,
            )
          }
          answer.then(settled, (error) => {
            failed(error)
            settled()
          })
          return answer
        },
      }
      return chain
    },
  }
}

/**
 * A node-postgres Pool (pg-pool, which Neon's Pool extends too) made with `pipeline: true`
 * (node-postgres 8.2x), whose connections write each query as soon as it is asked.
 */
export function pipelinedPool(pool: PostgresQueryable): pool is PostgresQueryable & PgPool {
  const candidate = pool as { connect?: unknown; totalCount?: unknown; options?: { pipeline?: unknown } }
  return typeof candidate.connect === 'function' && 'totalCount' in candidate && candidate.options?.pipeline === true
}

/** A node-postgres Pool (pg-pool) whose `end()` was called: it refuses every query from then on. */
export function ending(pool: PostgresQueryable): boolean {
  return (pool as { ending?: unknown }).ending === true
}

/** node-postgres' other form of `query`: a statement with a name is prepared once per connection. */
export interface NamedQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: any[] }>
}

/** A node-postgres Pool (pg-pool, which Neon's Pool extends too) or Client: both take `{ name, text, values }`. */
export function isNodePostgres(pool: PostgresQueryable): boolean {
  const candidate = pool as object
  return typeof (candidate as { connect?: unknown }).connect === 'function' && ('totalCount' in candidate || 'connectionParameters' in candidate)
}

const statementNames = new Map<string, string>()

/**
 * A statement's name, from its text: a connection holds one statement per name, so two stores on
 * one pool (other tables, other text) never share a name, and the same text always gets the same.
 */
export function statementName(text: string): string {
  let name = statementNames.get(text)
  if (name === undefined) {
    // FNV-1a, 32 bits twice (two seeds): a collision would need the same pool, two texts and 2^-64.
    let a = 0x811c9dc5
    let b = 0x01000193
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      a = Math.imul(a ^ code, 0x01000193) >>> 0
      b = Math.imul(b ^ code, 0x811c9dc5) >>> 0
    }
    name = `toolgate_${a.toString(36)}_${b.toString(36)}`
    statementNames.set(text, name)
  }
  return name
}
