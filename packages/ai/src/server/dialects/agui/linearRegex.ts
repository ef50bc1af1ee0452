// A regular expression run in time linear in its input: the pattern is compiled to a Thompson NFA
// and searched by simulating every state at once, one code point at a time, so no input makes it
// backtrack (`^(a+)+$`, `^a*a*a*$` and `(\d+)\d+` cost what `^a+$` costs). It reads ECMAScript
// syntax under the `u` flag, as JSON Schema's `pattern` is run. What needs backtracking to mean
// anything (backreferences, lookaround) is refused, and so is an automaton too large to bound.
// Single characters (`[^\p{L}\d]`, `\s`, `.`) are tested by the platform's engine on one code
// point at a time, where it cannot backtrack. A counted repetition of one character
// (`[a-z]{1,5000}`, `.{0,10000}`, `\d{3,}`) is one counting state, not a copy of the character per
// count: the threads inside it differ only by their count, and all read the same character, so it
// keeps the positions where they entered (a queue, oldest first, at most `max` long) and lets one
// out once the oldest has read `min`; its work per character stays constant.

/** A pattern this engine cannot run, and why. */
export class UnboundedPatternError extends Error {}

/** States an automaton may have: the work per input character is at most this. */
export const MAX_STATES = 2000

type Node =
  | { readonly kind: 'char'; readonly test: (codePoint: number) => boolean }
  | { readonly kind: 'seq'; readonly items: readonly Node[] }
  | { readonly kind: 'alt'; readonly options: readonly Node[] }
  | { readonly kind: 'repeat'; readonly body: Node; readonly min: number; readonly max: number }
  | { readonly kind: 'assert'; readonly at: '^' | '$' | 'b' | 'B' }

type State =
  | { kind: 'char'; test: (codePoint: number) => boolean; out: State; mark: number }
  | { kind: 'split'; out: State; alt: State; mark: number }
  | { kind: 'assert'; at: '^' | '$' | 'b' | 'B'; out: State; mark: number }
  | { kind: 'match'; mark: number }
  | Counter

/** `test{min,max}`: one state for every count; `entries` are where the threads in it entered, during the search `search`. */
interface Counter {
  kind: 'count'
  test: (codePoint: number) => boolean
  min: number
  max: number
  out: State
  mark: number
  /** The search and step it was last listed in (so it is stepped once per character). */
  listed: number
  search: number
  entries: number[]
  first: number
}

/** Repetitions of one character up to this many counts are run by one counting state. */
export const MAX_COUNT = 100_000

/** Below this many copies a repetition is cheaper as plain states. */
const COUNT_FROM = 8

/** A compiled pattern: `test` says whether it matches anywhere in the input, as `RegExp.prototype.test` would. */
export interface LinearRegex {
  readonly source: string
  test(input: string): boolean
}

/** Compiles `source`; throws `UnboundedPatternError` (or the platform's `SyntaxError` for an invalid pattern). */
export function linearRegex(source: string): LinearRegex {
  new RegExp(source, 'u') // the platform's syntax check: the parser below reads only valid patterns
  const ast = new Parser(source).parse()
  let count = 0
  const make = <S extends State>(state: S): S => {
    if (++count > MAX_STATES) throw new UnboundedPatternError(`it needs more than ${MAX_STATES} states to run in linear time (shorten its counted repetitions)`)
    return state
  }
  const match = make({ kind: 'match', mark: -1 })
  // Built back to front: each node is compiled knowing what follows it.
  const compile = (node: Node, next: State): State => {
    switch (node.kind) {
      case 'char':
        return make({ kind: 'char', test: node.test, out: next, mark: -1 })
      case 'assert':
        return make({ kind: 'assert', at: node.at, out: next, mark: -1 })
      case 'seq':
        return node.items.reduceRight((after, item) => compile(item, after), next)
      case 'alt': {
        const [first, ...rest] = node.options.map((option) => compile(option, next))
        return rest.reduce((joined, option) => make({ kind: 'split', out: joined, alt: option, mark: -1 }), first!)
      }
      case 'repeat': {
        if (node.body.kind === 'char' && (node.max === Infinity ? node.min : node.max) > COUNT_FROM) {
          return make<Counter>({ kind: 'count', test: node.body.test, min: node.min, max: node.max, out: next, mark: -1, listed: -1, search: -1, entries: [], first: 0 })
        }
        let after = next
        if (node.max === Infinity) {
          const loop = make({ kind: 'split', out: next, alt: next, mark: -1 })
          loop.out = compile(node.body, loop)
          after = loop
        } else {
          for (let i = node.min; i < node.max; i++) {
            const optional = make({ kind: 'split', out: next, alt: next, mark: -1 })
            optional.out = compile(node.body, after)
            after = optional
          }
        }
        for (let i = 0; i < node.min; i++) after = compile(node.body, after)
        return after
      }
    }
  }
  const start = compile(ast, match)
  return { source, test: (input) => search(start, input) }
}

/** Which step of which search marked a state: it only grows, so marks from earlier searches never count. */
let generation = 0

const isWord = (codePoint: number | undefined) =>
  codePoint !== undefined && ((codePoint >= 48 && codePoint <= 57) || (codePoint >= 65 && codePoint <= 90) || (codePoint >= 97 && codePoint <= 122) || codePoint === 95)

/** Whether the automaton from `start` matches at some position of `input`: every state at once, one code point at a time. */
function search(start: State, input: string): boolean {
  const points = Array.from(input, (char) => char.codePointAt(0)!)
  generation++
  const thisSearch = generation
  let matched = false
  /** Adds `state` and what it reaches without reading (at position `at`) to `into`. */
  const add = (into: State[], first: State, at: number) => {
    const stack = [first]
    while (stack.length > 0) {
      const state = stack.pop()!
      if (state.mark === generation) continue
      state.mark = generation
      switch (state.kind) {
        case 'match':
          matched = true
          break
        case 'char':
          into.push(state)
          break
        case 'count':
          // A thread enters with count 0: kept (the queue is this search's), listed once, and out at once when `min` is 0.
          if (state.search !== thisSearch) (state.search = thisSearch), (state.entries = []), (state.first = 0)
          if (state.max === Infinity && state.entries.length > state.first) {
            // With no upper bound only the oldest entry matters: every thread reads the same characters.
          } else state.entries.push(at)
          if (state.listed !== generation) (state.listed = generation), into.push(state)
          if (state.min === 0) stack.push(state.out)
          break
        case 'split':
          stack.push(state.alt, state.out)
          break
        case 'assert': {
          const before = points[at - 1]
          const after = points[at]
          const holds =
            state.at === '^' ? at === 0 : state.at === '$' ? at === points.length : (isWord(before) !== isWord(after)) === (state.at === 'b')
          if (holds) stack.push(state.out)
        }
      }
    }
  }
  let current: State[] = []
  for (let at = 0; ; at++) {
    // A search: a match may begin at any position.
    add(current, start, at)
    if (matched) return true
    if (at === points.length) return false
    generation++
    const next: State[] = []
    const point = points[at]!
    for (const state of current) {
      if (state.kind === 'char') {
        if (state.test(point)) add(next, state.out, at + 1)
      } else if (state.kind === 'count') step(state, point, at + 1, next)
    }
    if (matched) return true
    current = next
  }

  /** A counting state reads the character before `after`: every count is one more; out once the oldest reached `min`, kept while any is below `max`. */
  function step(state: Counter, point: number, after: number, next: State[]): void {
    if (!state.test(point)) {
      // Every thread in it ends.
      state.entries = []
      state.first = 0
      return
    }
    const { entries, min, max } = state
    while (state.first < entries.length && after - entries[state.first]! > max) state.first++
    if (state.first === entries.length) return
    if (state.first > 1024 && state.first * 2 > entries.length) (state.entries = entries.slice(state.first)), (state.first = 0)
    const oldest = state.entries[state.first]!
    if (after - oldest >= min) add(next, state.out, after)
    const newest = state.entries[state.entries.length - 1]!
    if (after - newest < max && state.listed !== generation) (state.listed = generation), next.push(state)
  }
}

/** A recursive-descent reader of the pattern's syntax, by code point. */
class Parser {
  #at = 0
  constructor(readonly source: string) {}

  parse(): Node {
    const node = this.#disjunction()
    if (this.#at < this.source.length) throw new UnboundedPatternError(`it has an unexpected "${this.source[this.#at]}"`)
    return node
  }

  #peek(offset = 0): string | undefined {
    return this.source[this.#at + offset]
  }

  #disjunction(): Node {
    const options = [this.#alternative()]
    while (this.#peek() === '|') {
      this.#at++
      options.push(this.#alternative())
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options }
  }

  #alternative(): Node {
    const items: Node[] = []
    while (this.#at < this.source.length && this.#peek() !== '|' && this.#peek() !== ')') {
      const atom = this.#atom()
      items.push(atom.kind === 'assert' ? atom : this.#quantified(atom))
    }
    return { kind: 'seq', items }
  }

  #quantified(body: Node): Node {
    const char = this.#peek()
    let min: number
    let max: number
    if (char === '*') (min = 0), (max = Infinity), this.#at++
    else if (char === '+') (min = 1), (max = Infinity), this.#at++
    else if (char === '?') (min = 0), (max = 1), this.#at++
    else if (char === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.#at))!
      min = Number(match[1])
      max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3])
      this.#at += match[0].length
    } else return body
    if (this.#peek() === '?') this.#at++ // lazy: the same language, and `test` asks only whether it matches
    const bound = body.kind === 'char' ? MAX_COUNT : MAX_STATES
    if (min > bound || (max !== Infinity && max > bound)) throw new UnboundedPatternError(`it repeats ${body.kind === 'char' ? 'a character' : 'something'} more than ${bound} times`)
    return { kind: 'repeat', body, min, max }
  }

  #atom(): Node {
    const char = this.#peek()!
    if (char === '^' || char === '$') {
      this.#at++
      return { kind: 'assert', at: char }
    }
    if (char === '(') return this.#group()
    if (char === '[') {
      const start = this.#at
      for (this.#at++; this.#peek() !== ']'; this.#at++) if (this.#peek() === '\\') this.#at++
      this.#at++
      return single(this.source.slice(start, this.#at))
    }
    if (char === '.') {
      this.#at++
      return single('.')
    }
    if (char === '\\') return this.#escape()
    const codePoint = this.source.codePointAt(this.#at)!
    this.#at += codePoint > 0xffff ? 2 : 1
    return { kind: 'char', test: (point) => point === codePoint }
  }

  #group(): Node {
    const rest = this.source.slice(this.#at, this.#at + 4)
    if (/^\(\?<?[=!]/.test(rest)) throw new UnboundedPatternError('it uses a lookaround')
    if (rest.startsWith('(?:')) this.#at += 3
    else if (rest.startsWith('(?<')) this.#at = this.source.indexOf('>', this.#at) + 1
    else if (rest.startsWith('(?')) throw new UnboundedPatternError('it uses a group modifier')
    else this.#at += 1
    const inner = this.#disjunction()
    this.#at++ // ')'
    return inner
  }

  #escape(): Node {
    const next = this.#peek(1)!
    if (/[1-9]/.test(next) || next === 'k') throw new UnboundedPatternError('it uses a backreference')
    if (next === 'b' || next === 'B') {
      this.#at += 2
      return { kind: 'assert', at: next }
    }
    const start = this.#at
    const rest = this.source.slice(start)
    const escape = /^\\(?:u\{[\da-fA-F]+\}|u[\da-fA-F]{4}(?:\\u[\da-fA-F]{4})?|x[\da-fA-F]{2}|c[A-Za-z]|[pP]\{[^}]*\}|[\s\S])/.exec(rest)![0]
    // A surrogate pair written as two escapes is one code point under `u`; two others are two atoms.
    const pair = /^\\u([\da-fA-F]{4})\\u([\da-fA-F]{4})$/.exec(escape)
    if (pair && !(/^d[89ab]/i.test(pair[1]!) && /^d[c-f]/i.test(pair[2]!))) {
      this.#at += 6
      return single(escape.slice(0, 6))
    }
    this.#at += escape.length
    return single(escape)
  }
}

/** One character as the platform's engine reads it (a class, an escape, `.`), tested on one code point: no backtracking is possible. */
function single(source: string): Node {
  const regex = new RegExp(`^(?:${source})$`, 'u')
  return { kind: 'char', test: (codePoint) => regex.test(String.fromCodePoint(codePoint)) }
}
