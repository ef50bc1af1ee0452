import { stem } from './stem.ts'

// Tool names are `snake_case`, `camelCase`, `kebab-case` or paths (`repos/issues.list`); requests
// are prose. Both become the same lower-case, stemmed terms.

const STOP_WORDS: ReadonlySet<string> = new Set(
  ('a about all an and any are as at be been but by can could do does did for from get got has have how i if in into is it its just let me my ' +
    'need of on or our please should show so some that the their them then there these this those to us use used using want was we were what ' +
    'when where which who will with would you your yours tell give')
    .split(' '),
)

/** Lower-case words of `text`, split at anything not a letter or digit and at camelCase humps. */
export function wordsOf(text: string): string[] {
  const spaced = text
    .replace(/\b([A-Z]{2,})s\b/g, (_, acronym: string) => `${acronym.toLowerCase()}s`) // "PRs", "URLs"
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
  return spaced.split(/[^a-z0-9]+/).filter((word) => word.length > 0)
}

/** The searchable terms of `text`: words without stop words, stemmed. */
export function tokenize(text: string): string[] {
  const terms: string[] = []
  for (const word of wordsOf(text)) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue
    terms.push(stem(word))
  }
  return terms
}
