/** Text `JSON.stringify` writes unchanged between quotes: what ids are made of (ours, and those clients send). */
const PLAIN = /^[\w.:-]*$/

/**
 * `JSON.stringify(text)` for a string, quoted by hand when it needs no escape (an id, a tool's
 * name): a call into `JSON.stringify` costs several times the test, and an event's JSON is written
 * key by key out of such strings (events/runEvents.ts).
 */
export function jsonString(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text)
}
