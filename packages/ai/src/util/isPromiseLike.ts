/** Whether a value from code we do not own (a tool, a schema library) is a thenable to await, rather than the value itself. */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function'
}
