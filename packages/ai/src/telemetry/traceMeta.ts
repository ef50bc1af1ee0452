// The trace context an outgoing MCP call carries in `_meta`. `openTelemetry()` registers how to
// read it; until then (or without OpenTelemetry) there is none, and nothing is loaded to find out.

let current: (() => Record<string, string> | undefined) | undefined

/** Called by `openTelemetry()`: how to read the active trace context as `traceparent` / `tracestate`. */
export function registerTraceMeta(read: () => Record<string, string> | undefined): void {
  current = read
}

/** The active trace context as MCP `_meta` fields, when OpenTelemetry is on and a span is active. */
export function traceMeta(): Record<string, string> | undefined {
  return current?.()
}
