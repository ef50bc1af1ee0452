// Regular expressions in a client's JSON Schema are untrusted: the server runs them on the model's
// arguments with a backtracking engine, where `^(a+)+$` takes seconds on 30 characters and blocks
// every client. A pattern is accepted only when no part of it can backtrack without bound: no
// backreference or lookaround, and no repeated group that itself repeats or alternates (the
// shapes of catastrophic backtracking). What is refused is named by its path; the app can still
// declare such a tool on the server, where its schema is trusted.

/** Why `pattern` may backtrack without bound, or `undefined` when it is safe to run. */
export function unsafePatternReason(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) return `it is longer than ${MAX_PATTERN_LENGTH} characters`
  // Each open group: whether it holds a repetition or an alternation.
  const groups: { ambiguous: boolean }[] = [{ ambiguous: false }]
  let lastGroup: { ambiguous: boolean } | undefined
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    const repeat = repetitionAt(pattern, i)
    if (repeat) {
      if (repeat.many && lastGroup?.ambiguous) return 'a repeated group repeats or alternates inside (it can backtrack exponentially)'
      if (repeat.many) groups.at(-1)!.ambiguous = true
      i += repeat.length - 1
      lastGroup = undefined
      continue
    }
    lastGroup = undefined
    if (char === '\\') {
      const next = pattern[i + 1] ?? ''
      if (/[1-9]/.test(next) || next === 'k') return 'it uses a backreference'
      i += 1
    } else if (char === '[') {
      for (i += 1; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i += 1
    } else if (char === '(') {
      if (/^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) return 'it uses a lookaround'
      groups.push({ ambiguous: false })
    } else if (char === ')') {
      lastGroup = groups.length > 1 ? groups.pop() : undefined
      if (lastGroup?.ambiguous) groups.at(-1)!.ambiguous = true
    } else if (char === '|') {
      groups.at(-1)!.ambiguous = true
    }
  }
  return undefined
}

const MAX_PATTERN_LENGTH = 1000

/** A quantifier at `i`: its length, and whether it repeats more than once (`?` and `{0,1}` do not). */
function repetitionAt(pattern: string, i: number): { length: number; many: boolean } | undefined {
  const char = pattern[i]
  let length = 0
  let many = false
  if (char === '*' || char === '+') (length = 1), (many = true)
  else if (char === '?') length = 1
  else if (char === '{') {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i))
    if (!match) return undefined
    length = match[0].length
    const max = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3])
    many = max > 1
  } else return undefined
  if (pattern[i + length] === '?') length += 1 // lazy: backtracks alike
  return { length, many }
}

/** The first unsafe pattern of a client's JSON Schema (`pattern`, `patternProperties`), with its path under `path`. */
export function findUnsafePattern(schema: unknown, path: string, depth = 0): { path: string; reason: string } | undefined {
  if (depth > 64 || schema === null || typeof schema !== 'object') return undefined
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) {
      const found = findUnsafePattern(item, `${path}[${index}]`, depth + 1)
      if (found) return found
    }
    return undefined
  }
  for (const [key, value] of Object.entries(schema)) {
    const at = `${path}.${key}`
    if (key === 'pattern' && typeof value === 'string') {
      const reason = unsafePatternReason(value)
      if (reason) return { path: at, reason }
    }
    if (key === 'patternProperties' && value !== null && typeof value === 'object') {
      for (const name of Object.keys(value)) {
        const reason = unsafePatternReason(name)
        if (reason) return { path: `${at}.${name}`, reason }
      }
    }
    const found = findUnsafePattern(value, at, depth + 1)
    if (found) return found
  }
  return undefined
}
