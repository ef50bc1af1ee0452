/** Freezes a value and everything in it, so a cached, shared value cannot be changed by a consumer. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    // Walked in place, not through `Object.values`: the store freezes every head and message it
    // takes, and an array of children per object is most of what that costs.
    // Only objects are walked into: most values of a head or a message are strings and numbers, a call each for nothing.
    if (Array.isArray(value)) {
      for (const child of value) if (typeof child === 'object' && child !== null) deepFreeze(child)
    } else {
      for (const key in value) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) continue
        const child = (value as Record<string, unknown>)[key]
        if (typeof child === 'object' && child !== null) deepFreeze(child)
      }
    }
  }
  return value
}
