import { exceedsJsonDepth, MAX_JSON_DEPTH } from './jsonDepth.ts'

export type ParsedArguments =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string; readonly tooDeep?: true }

/**
 * A tool call's arguments as the model sent them, as JSON text. Models send `""` (or whitespace)
 * for a tool without parameters; that means `{}`. Arguments nested deeper than `MAX_JSON_DEPTH`
 * are refused before anything walks them. What to do with text that is not JSON is the caller's
 * choice: report it, keep the text, or fall back.
 */
export function parseToolArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, value: {} }
  if (exceedsJsonDepth(text)) return { ok: false, error: `nested deeper than the limit of ${MAX_JSON_DEPTH} levels`, tooDeep: true }
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    return { ok: false, error: (error as Error).message }
  }
}
