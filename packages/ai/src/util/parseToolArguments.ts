export type ParsedArguments = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string }

/**
 * A tool call's arguments as the model sent them, as JSON text. Models send `""` (or whitespace)
 * for a tool without parameters; that means `{}`. What to do with text that is not JSON is the
 * caller's choice: report it, keep the text, or fall back.
 */
export function parseToolArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, value: {} }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    return { ok: false, error: (error as Error).message }
  }
}
