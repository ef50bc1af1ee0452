/**
 * A connection's failures in words: the first of an outage is one line (what, where, why, that it
 * is tried again), the others are counted, and its end is one line with the count. Never a stack
 * trace per attempt: a stopped Redis would print one every second.
 */
export function connectionLog(what: string, write: (line: string) => void = (line) => console.error(line)) {
  let failures = 0
  let since = 0
  return {
    failed: (error: unknown) => {
      failures += 1
      if (failures > 1) return
      since = Date.now()
      write(`[demo] Cannot reach ${what}: ${reasonOf(error)}. Trying again with backoff (up to every 10 s); requests get 503 STORE_ERROR meanwhile.`)
    },
    ready: () => {
      if (failures === 0) return
      write(`[demo] ${what} is back after ${failures} failed attempt${failures === 1 ? '' : 's'} in ${Math.round((Date.now() - since) / 1000)} s.`)
      failures = 0
    },
  }
}

/** `ECONNREFUSED`, `ENOTFOUND`, or the error's own first line (drivers' messages here name no secret but the host). */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') return code
  const errors = (error as { errors?: unknown } | undefined)?.errors
  if (Array.isArray(errors) && errors.length > 0) return reasonOf(errors[0])
  return error instanceof Error ? error.message.split('\n')[0]! : String(error)
}
