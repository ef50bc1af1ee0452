/**
 * Provider names for an object's property keys: keys the provider accepts stay; others become
 * `[A-Za-z0-9_]` names that start with a letter or `_` (valid for every provider), made unique
 * within the object. Deterministic, so the mapping back needs no state.
 */
export function providerPropertyNames(keys: readonly string[], rule: RegExp | undefined): Map<string, string> {
  const names = new Map<string, string>()
  if (!rule) return names
  const taken = new Set(keys.filter((key) => rule.test(key)))
  for (const key of keys) {
    if (rule.test(key)) {
      names.set(key, key)
      continue
    }
    const name = uniqueName(sanitize(key), taken, rule)
    taken.add(name)
    names.set(key, name)
  }
  return names
}

const MAX_LENGTH = 64

function sanitize(key: string): string {
  let name = key.replace(/[^A-Za-z0-9_]/g, '_')
  if (name === '' || /^[0-9]/.test(name)) name = `_${name}`
  return name.slice(0, MAX_LENGTH)
}

function uniqueName(base: string, taken: ReadonlySet<string>, rule: RegExp): string {
  if (!taken.has(base) && rule.test(base)) return base
  for (let i = 2; ; i++) {
    const suffix = `_${i}`
    const name = base.slice(0, MAX_LENGTH - suffix.length) + suffix
    if (!taken.has(name) && rule.test(name)) return name
  }
}
