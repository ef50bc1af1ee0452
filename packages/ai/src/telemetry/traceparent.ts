// W3C Trace Context (`traceparent: 00-<trace-id>-<span-id>-<flags>`), read and written by hand:
// a wait's trace context is stored with its interrupt and read back on whichever instance the
// answer reaches, whatever propagator that process registered.

export interface TraceParent {
  readonly traceId: string
  readonly spanId: string
  readonly traceFlags: number
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string') return undefined
  const match = TRACEPARENT.exec(value.trim())
  if (!match) return undefined
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string]
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) }
}

export function formatTraceparent({ traceId, spanId, traceFlags }: TraceParent): string {
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`
}
