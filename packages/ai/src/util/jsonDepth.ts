/**
 * How deep JSON may nest wherever it enters: request bodies (answers and edited arguments
 * included) and a model's tool arguments. Real tool inputs stay far below it; deeper ones only
 * serve to overflow the stack of whatever walks them later (a validator, `JSON.stringify`, a store).
 */
export const MAX_JSON_DEPTH = 64

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth`, read from the text itself so
 * nothing is parsed, allocated or recursed: a linear scan that skips strings. Text that is not
 * JSON is left to `JSON.parse` to report.
 */
export function exceedsJsonDepth(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  // Nesting deeper takes more opening brackets than a short text (a chat message's body, most tool arguments) holds.
  if (text.length <= maxDepth) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 0x5c /* \ */) i++
      else if (char === 0x22 /* " */) inString = false
    } else if (char === 0x22) inString = true
    else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      if (++depth > maxDepth) return true
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) depth--
  }
  return false
}
