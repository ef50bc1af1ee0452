/**
 * Sets an own, enumerable property, even for `__proto__`: a plain `out[key] = value` with that key
 * from untrusted JSON would replace the object's prototype instead (and smuggle inherited values
 * past validators that check own keys).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}
