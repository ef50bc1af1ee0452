import type { StandardSchemaV1 } from '@standard-schema/spec'
import { formatIssuePath, formatIssues } from '../../schema/formatIssues.ts'
import { HttpError } from '../errors.ts'
import type { ToolRegistry } from '../../tools/toolRegistry.ts'

// The app's context (the handler's `context` option) as each tool sees it. Tools that declare a
// `contextSchema` get the schema's output; the others get the app's value as it is. The check
// runs when a turn starts, before the thread is claimed or the model called, so a deployment
// that forgot a tenant's key fails loudly at once rather than halfway through a conversation.

/** The app's context and, for each tool with a `contextSchema`, the validated value it sees. */
export class RunContext {
  constructor(
    readonly app: unknown,
    readonly byTool: ReadonlyMap<string, unknown>,
  ) {}
}

/** What `ctx.context` is for `toolName` in a run whose context is `context`. */
export function contextFor(context: unknown, toolName: string): unknown {
  if (!(context instanceof RunContext)) return context
  return context.byTool.has(toolName) ? context.byTool.get(toolName) : context.app
}

/** The app's own value, whatever the run holds. */
export function appContext(context: unknown): unknown {
  return context instanceof RunContext ? context.app : context
}

/**
 * Checks `app` against every tool's `contextSchema`. Throws `CONTEXT_INVALID` (500) naming each
 * tool and the paths that failed; the issues themselves, which may quote the values, go to the
 * server log only.
 */
export function checkContext(tools: ToolRegistry, app: unknown): unknown {
  // Most apps' tools declare no contextSchema: then the context is the app's as it is, at once.
  for (const name of tools.names) if (tools.get(name)?.tool.contextSchema) return checkContextSchemas(tools, app)
  return app
}

async function checkContextSchemas(tools: ToolRegistry, app: unknown): Promise<unknown> {
  const byTool = new Map<string, unknown>()
  const failures: { toolName: string; issues: readonly StandardSchemaV1.Issue[] }[] = []
  for (const name of tools.names) {
    const schema = tools.get(name)?.tool.contextSchema as StandardSchemaV1 | undefined
    if (!schema) continue
    const result = await schema['~standard'].validate(app)
    if (result.issues) failures.push({ toolName: name, issues: result.issues })
    else byTool.set(name, result.value)
  }
  if (failures.length > 0) {
    for (const { toolName, issues } of failures) {
      console.error(`[toolgate] the chat handler's \`context\` does not satisfy the contextSchema of tool "${toolName}":\n${formatIssues(issues)}`)
    }
    const named = failures.map(({ toolName, issues }) => `tool "${toolName}" needs ${describePaths(issues)}`)
    throw new HttpError(500, 'CONTEXT_INVALID', `The chat handler's context is incomplete: ${named.join('; ')}`)
  }
  return byTool.size === 0 ? app : new RunContext(app, byTool)
}

function describePaths(issues: readonly StandardSchemaV1.Issue[]): string {
  const paths = [...new Set(issues.map((issue) => formatIssuePath(issue.path)))]
  return paths.map((path) => (path === '(root)' ? 'a context object' : `\`context.${path}\``)).join(', ')
}
