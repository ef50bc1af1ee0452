// A light suffix stripper, enough to meet "issues"/"issue", "closing"/"closed"/"close",
// "committed"/"commits"/"commit". Porter's full algorithm conflates too much for tool vocabulary
// ("organization"/"organ") and costs more than the lookups it saves.

const VOWEL = /[aeiouy]/

/** Words repeat across a catalog and its requests; a bounded memo makes stemming a lookup. */
const memo = new Map<string, string>()
const MEMO_LIMIT = 50_000

export function stem(word: string): string {
  let stemmed = memo.get(word)
  if (stemmed === undefined) {
    stemmed = stemWord(word)
    if (memo.size >= MEMO_LIMIT) memo.clear()
    memo.set(word, stemmed)
  }
  return stemmed
}

function stemWord(word: string): string {
  // Three-letter plurals of abbreviations: "prs", "mrs", "ids".
  if (word.length === 3 && /^[a-z][b-df-hj-np-tv-z]s$/.test(word)) return word.slice(0, 2)
  if (word.length <= 3 || /\d/.test(word)) return word
  let stemmed = word
  if (word.endsWith('ies') && word.length > 4) stemmed = `${word.slice(0, -3)}y`
  else if (word.endsWith('sses')) stemmed = word.slice(0, -2)
  else if (/(x|ch|sh|zz)es$/.test(word)) stemmed = word.slice(0, -2)
  else if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) stemmed = word.slice(0, -1)
  else if (word.endsWith('ing') && VOWEL.test(word.slice(0, -3)) && word.length > 5) stemmed = undouble(word.slice(0, -3))
  else if (word.endsWith('ied') && word.length > 4) stemmed = `${word.slice(0, -3)}y`
  else if (word.endsWith('ed') && !word.endsWith('eed') && VOWEL.test(word.slice(0, -2)) && word.length > 4) stemmed = undouble(word.slice(0, -2))
  // "deployment"/"deploy", "replacement"/"replace"; "comment" and "payment" stay whole.
  if (stemmed.length > 9 && stemmed.endsWith('ment')) stemmed = stemmed.slice(0, -4)
  // "reviewer"/"review", "listener"/"listen"; short words keep theirs ("user", "owner", "filter").
  if (stemmed.length > 7 && stemmed.endsWith('er')) stemmed = stemmed.slice(0, -2)
  // "create", "created" and "creating" all become "creat".
  if (stemmed.length > 4 && stemmed.endsWith('e')) stemmed = stemmed.slice(0, -1)
  return stemmed
}

/** "committ" → "commit", "runn" → "run"; "install", "press" and "buzz" keep their pair. */
function undouble(word: string): string {
  return /([^aeiouslz])\1$/.test(word) ? word.slice(0, -1) : word
}
