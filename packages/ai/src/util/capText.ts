/** Cuts user-supplied text the model will read, so one answer cannot flood the context. */
export function capText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text // UTF-16 units: never fewer than code points
  let kept = ''
  let count = 0
  for (const char of text) {
    if (count++ === maxLength) return `${kept}…`
    kept += char
  }
  return text
}

/** How much of a client's value a refusal quotes back: its start, never the whole of what it refuses. */
export const ECHO_CHARS = 64

/** A client's value as an error message quotes it: its first `ECHO_CHARS` characters, as a JSON string. */
export function echoed(text: string): string {
  return JSON.stringify(capText(text, ECHO_CHARS))
}
