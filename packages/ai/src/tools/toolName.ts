import { ToolDefinitionError } from '../errors.ts'

/** Accepted by OpenAI, Anthropic, Gemini, Vertex and MCP alike (docs/provider-rules.md, section E). */
const PORTABLE_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/

const warned = new Set<string>()

/** Throws on a missing name. */
export function checkToolName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new ToolDefinitionError('A tool needs a non-empty `name`')
  }
}

/**
 * Warns once for a name some provider would refuse. Called when a tool is first described to a
 * model (its JSON Schema emitted, on the server), not when it is defined: a browser defines the same
 * tools, and its users' consoles are no place for a note to the server's developer (nor its bundle
 * for the note).
 */
export function warnIfNotPortable(name: string): void {
  if (!PORTABLE_NAME.test(name) && !warned.has(name)) {
    warned.add(name)
    console.warn(
      `[toolgate] Tool name "${name}" is not portable across providers (expected ${PORTABLE_NAME}); ` +
        'provider adapters will map it to a name each provider accepts.',
    )
  }
}
