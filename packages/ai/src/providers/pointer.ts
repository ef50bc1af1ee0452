/** A JSON Pointer token: `~` and `/` escaped (RFC 6901). */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1')
}

function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~')
}

/** `base` extended by each token, escaped. */
export function childPointer(base: string, ...tokens: readonly (string | number)[]): string {
  let pointer = base
  for (const token of tokens) pointer += `/${escapeToken(token)}`
  return pointer
}

/** The tokens of a pointer (`''` has none). */
export function pointerTokens(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(unescapeToken)
}
