import type { StandardSchemaV1 } from '@standard-schema/spec'

/** `items[0].name`, or `(root)` for an issue about the value itself. */
export function formatIssuePath(path: StandardSchemaV1.Issue['path']): string {
  if (!path || path.length === 0) return '(root)'
  let out = ''
  for (const segment of path) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment
    if (typeof key === 'number') out += `[${key}]`
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key
    else out += `[${JSON.stringify(String(key))}]`
  }
  return out
}

/** One line per issue, `path: message`. */
export function formatIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  return issues.map((issue) => `- ${formatIssuePath(issue.path)}: ${issue.message}`).join('\n')
}
