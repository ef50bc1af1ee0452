/** Freezes a value and everything in it, so a cached, shared value cannot be changed by a consumer. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    // Walked in place, not through `Object.values`: the store freezes every head and message it
    // takes, and an array of children per object is most of what that costs.
    if (Array.isArray(value)) for (const child of value) deepFreeze(child)
    else for (const key in value) if (Object.prototype.hasOwnProperty.call(value, key)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
