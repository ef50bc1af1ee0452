import type { WakeupSignals } from './runWakeups.ts'
import { StoreError } from './storeError.ts'

// The PostgreSQL store's LISTEN connection: how a commit on one instance wakes the readers and
// watchers on the others at once (without it they poll).

/**
 * A connection of its own on which the store LISTENs (a connected `pg.Client`, not one of the
 * pool's: a pooled connection goes back and stops listening).
 */
export interface PostgresListenerLike {
  query(text: string): Promise<unknown>
  on(event: 'notification', listener: (message: { channel: string; payload?: string | undefined }) => void): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
  on(event: 'end', listener: () => void): unknown
  end?(): Promise<unknown>
}

/** How long the listener waits before connecting again, doubling from the first to the last. */
const LISTENER_BACKOFF_MS = [100, 200, 400, 800, 1600, 3200, 5000]

/**
 * LISTENs on `channel` on the listener's connection and keeps it up: when the connection drops
 * (the server restarted, the connection was killed), readers poll while a fresh one connects, after
 * a backoff that doubles up to 5 s. A listener given as a client cannot connect again: readers poll
 * from then on, and `onError` says why.
 */
export async function listen(
  listener: PostgresListenerLike | (() => Promise<PostgresListenerLike>),
  channel: string,
  signals: WakeupSignals,
  report: (error: StoreError) => void,
): Promise<void> {
  const connect = typeof listener === 'function' ? listener : undefined
  let failures = 0
  const attach = async (client: PostgresListenerLike) => {
    let lost = false
    const drop = (error: Error) => {
      if (lost) return
      lost = true
      signals.down()
      report(new StoreError('postgresStore', connect ? 'LISTEN connection (connecting again)' : 'LISTEN connection (pass `listener` as a function to connect again)', error))
      client.end?.().catch(() => {})
      if (connect) retry()
    }
    client.on('error', drop)
    // A connection that ends without an error was ended by the app (at shutdown): readers poll, and
    // nothing connects again behind its back.
    client.on('end', () => {
      if (lost) return
      lost = true
      signals.down()
    })
    client.on('notification', (message) => {
      if (message.channel !== channel || !message.payload) return
      // A commit's wakes its thread's watchers and the readers of the run whose events it carries (see wakePayload).
      for (const key of message.payload.split('\n')) signals.wake(key)
    })
    try {
      await client.query(`LISTEN ${channel}`)
    } catch (error) {
      return drop(error as Error)
    }
    failures = 0
    if (!lost) signals.up()
  }
  const retry = () => {
    const delay = LISTENER_BACKOFF_MS[Math.min(failures++, LISTENER_BACKOFF_MS.length - 1)]!
    const timer = setTimeout(() => {
      connect!().then(attach).catch((error) => {
        report(new StoreError('postgresStore', 'LISTEN connection (connecting again)', error))
        retry()
      })
    }, delay)
    // A process with nothing else to do may exit: the listener does not hold it.
    ;(timer as { unref?: () => void }).unref?.()
  }
  if (!connect) return attach(listener as PostgresListenerLike)
  let first: PostgresListenerLike
  try {
    first = await connect()
  } catch (error) {
    retry()
    throw error
  }
  await attach(first)
}
