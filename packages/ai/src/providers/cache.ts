/** How many conversions actually ran (cache misses); for the benchmark and tests. */
export const conversionStats = { tools: 0, schemas: 0 }

/**
 * A per-owner memo: owners are tools and frozen schemas, held weakly so a dropped tool takes
 * its conversions with it.
 */
export function memoize<V>(cache: WeakMap<object, Map<string, V>>, owner: object, key: string, make: () => V): V {
  let byKey = cache.get(owner)
  if (!byKey) {
    byKey = new Map()
    cache.set(owner, byKey)
  }
  const hit = byKey.get(key)
  if (hit !== undefined) return hit
  const value = make()
  byKey.set(key, value)
  return value
}
