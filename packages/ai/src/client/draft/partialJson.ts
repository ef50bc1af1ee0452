/**
 * An incremental JSON parser for tool-call arguments that arrive in fragments. It is a resumable
 * state machine: each `push` reads only the new text, so parsing a streamed value costs time linear
 * in its size (re-parsing the whole prefix per fragment would be quadratic).
 *
 * `value()` returns the value read so far as frozen data. Closed objects and arrays are frozen once
 * when they close and shared by every later value; only the containers still open are copied, and
 * only when something changed since the previous call.
 */

// Where the machine stands (plain numbers, so they inline). Token modes (string, escape, number,
// literal) resume mid-token. The three string modes are consecutive: `value()` tests the range.
const M_VALUE = 0 // a value must come: at the root, after `:` or after `,` in an array
const M_VALUE_OR_CLOSE = 1 // just after `[`
const M_KEY_OR_CLOSE = 2 // just after `{`
const M_KEY = 3 // after `,` in an object
const M_COLON = 4
const M_COMMA_OR_CLOSE = 5 // after a value in a container
const M_STRING = 6
const M_ESCAPE = 7
const M_UNICODE = 8
const M_NUMBER = 9
const M_LITERAL = 10
const M_DONE = 11 // a whole value was read; only whitespace may follow
const M_FAILED = 12

interface Frame {
  readonly container: Record<string, unknown> | unknown[]
  readonly isArray: boolean
  /** The key whose value is being read, in an object. */
  key: string | undefined
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/
const LITERALS: Record<string, unknown> = { true: true, false: false, null: null }
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }
const NOTHING = Symbol('nothing')

export class PartialJsonParser {
  #mode = M_VALUE
  readonly #stack: Frame[] = []
  /** The text of the token being read (string content, number or literal). */
  #token = ''
  /** Whether the string so far ends in half a surrogate pair, which `value()` holds back. */
  #endsInHighSurrogate = false
  #hex = ''
  #stringIsKey = false
  #root: unknown = NOTHING
  #cached: unknown = undefined
  #changed = false
  #failure: string | undefined
  #consumed = 0

  /** Why the text is not JSON, once it is known not to be. */
  get error(): string | undefined {
    return this.#failure
  }

  /** Whether a whole JSON value has been read. */
  get done(): boolean {
    return this.#mode === M_DONE
  }

  /** Whether nothing but whitespace has been read. */
  get empty(): boolean {
    return this.#mode === M_VALUE && this.#stack.length === 0
  }

  /** Reads the next fragment. Never throws: malformed text stops the parser and sets `error`. */
  push(text: string): void {
    let i = 0
    const n = text.length
    while (i < n && this.#mode !== M_FAILED) i = this.#step(text, i, n)
    this.#consumed += n
  }

  /**
   * The value so far: whole values, strings cut where the text ends (before an escape not yet
   * complete), and containers holding what they hold so far. Keys, numbers and literals appear
   * only once complete. Same reference until something changes.
   */
  value(): unknown {
    if (!this.#changed) return this.#cached
    this.#changed = false
    let child: unknown = NOTHING
    // Mid-escape is still mid-string; a high surrogate waits for its pair, so no replacement character flashes.
    if (this.#mode >= M_STRING && this.#mode <= M_UNICODE && !this.#stringIsKey) {
      child = this.#endsInHighSurrogate ? this.#token.slice(0, -1) : this.#token
    }
    if (this.#stack.length === 0) return (this.#cached = child === NOTHING ? rootValue(this.#root) : child)
    for (let depth = this.#stack.length - 1; depth >= 0; depth--) {
      const frame = this.#stack[depth]!
      const copy = frame.isArray ? (frame.container as unknown[]).slice() : { ...frame.container }
      if (child !== NOTHING) assign(copy, frame, child)
      child = Object.freeze(copy)
    }
    return (this.#cached = child)
  }

  #step(text: string, i: number, n: number): number {
    switch (this.#mode) {
      case M_STRING:
        return this.#readString(text, i, n)
      case M_ESCAPE:
        return this.#readEscape(text, i)
      case M_UNICODE:
        return this.#readUnicode(text, i, n)
      case M_NUMBER:
        return this.#readRun(text, i, n, isNumberChar)
      case M_LITERAL:
        return this.#readRun(text, i, n, isLetter)
      default:
        return this.#readStructure(text, i)
    }
  }

  /** Copies runs of plain characters at once; stops at a quote, a backslash or a control character. */
  #readString(text: string, i: number, n: number): number {
    let j = i
    let code = 0
    while (j < n) {
      code = text.charCodeAt(j)
      if (code === 0x22 || code === 0x5c || code < 0x20) break
      j++
    }
    if (j > i) this.#appendToken(text.slice(i, j))
    if (j === n) return n
    if (code < 0x20) return this.#fail('a control character inside a string', j)
    if (code === 0x5c) {
      this.#mode = M_ESCAPE
      return j + 1
    }
    this.#endString()
    return j + 1
  }

  #readEscape(text: string, i: number): number {
    const char = text[i]!
    if (char === 'u') {
      this.#hex = ''
      this.#mode = M_UNICODE
      return i + 1
    }
    const escaped = ESCAPES[char]
    if (escaped === undefined) return this.#fail(`the escape \\${char}`, i)
    this.#appendToken(escaped)
    this.#mode = M_STRING
    return i + 1
  }

  #readUnicode(text: string, i: number, n: number): number {
    while (i < n && this.#hex.length < 4) {
      const char = text[i]!
      if (!/[0-9a-fA-F]/.test(char)) return this.#fail(`the character ${JSON.stringify(char)} in a \\u escape`, i)
      this.#hex += char
      i++
    }
    if (this.#hex.length === 4) {
      // Surrogate pairs come as two escapes; JavaScript strings are UTF-16, so each half is appended as is.
      this.#appendToken(String.fromCharCode(parseInt(this.#hex, 16)))
      this.#mode = M_STRING
    }
    return i
  }

  /** Numbers and literals end at the first character that cannot belong to them. */
  #readRun(text: string, i: number, n: number, belongs: (code: number) => boolean): number {
    let j = i
    while (j < n && belongs(text.charCodeAt(j))) j++
    this.#token += text.slice(i, j)
    if (j === n) return n
    return this.#endScalar(j)
  }

  #endScalar(i: number): number {
    const token = this.#token
    const at = this.#consumed + i - token.length
    if (this.#mode === M_NUMBER) {
      if (!NUMBER.test(token)) return this.#fail(`the number ${token}`, at)
      this.#addValue(Number(token))
    } else {
      if (!Object.hasOwn(LITERALS, token)) return this.#fail(`the word ${token}`, at)
      this.#addValue(LITERALS[token])
    }
    return i
  }

  #readStructure(text: string, i: number): number {
    const char = text[i]!
    if (char === ' ' || char === '\n' || char === '\r' || char === '\t') return i + 1
    switch (this.#mode) {
      case M_VALUE:
      case M_VALUE_OR_CLOSE:
        if (char === ']' && this.#mode === M_VALUE_OR_CLOSE) return this.#close(i)
        return this.#startValue(char, i)
      case M_KEY_OR_CLOSE:
      case M_KEY:
        if (char === '}' && this.#mode === M_KEY_OR_CLOSE) return this.#close(i)
        if (char !== '"') return this.#unexpected(char, i)
        this.#startString(true)
        return i + 1
      case M_COLON:
        if (char !== ':') return this.#unexpected(char, i)
        this.#mode = M_VALUE
        return i + 1
      case M_COMMA_OR_CLOSE: {
        const frame = this.#stack[this.#stack.length - 1]!
        if (char === ',') {
          this.#mode = frame.isArray ? M_VALUE : M_KEY
          return i + 1
        }
        if (char === (frame.isArray ? ']' : '}')) return this.#close(i)
        return this.#unexpected(char, i)
      }
      default:
        return this.#unexpected(char, i)
    }
  }

  #startValue(char: string, i: number): number {
    if (char === '"') this.#startString(false)
    else if (char === '{' || char === '[') this.#open(char === '[')
    else if (char === '-' || (char >= '0' && char <= '9')) this.#startToken(M_NUMBER, char)
    else if (char >= 'a' && char <= 'z') this.#startToken(M_LITERAL, char)
    else return this.#unexpected(char, i)
    return i + 1
  }

  #startString(isKey: boolean): void {
    this.#stringIsKey = isKey
    this.#token = ''
    this.#endsInHighSurrogate = false
    this.#mode = M_STRING
    // An empty string value already shows, as `""`.
    if (!isKey) this.#changed = true
  }

  #startToken(mode: typeof M_NUMBER | typeof M_LITERAL, first: string): void {
    this.#token = first
    this.#mode = mode
  }

  #appendToken(text: string): void {
    if (text === '') return
    this.#token += text
    // Read from the appended piece, never the token: a long token is a rope, and reading a
    // character of it would flatten it on every delta, making streaming quadratic.
    const last = text.charCodeAt(text.length - 1)
    this.#endsInHighSurrogate = last >= 0xd800 && last <= 0xdbff
    if (!this.#stringIsKey) this.#changed = true
  }

  #endString(): void {
    if (!this.#stringIsKey) return this.#addValue(this.#token)
    this.#stack[this.#stack.length - 1]!.key = this.#token
    this.#mode = M_COLON
  }

  #open(isArray: boolean): void {
    this.#stack.push({ container: isArray ? [] : {}, isArray, key: undefined })
    this.#mode = isArray ? M_VALUE_OR_CLOSE : M_KEY_OR_CLOSE
    this.#changed = true
  }

  /** A closed container holds only final values, so freezing it in place makes it its own snapshot. */
  #close(i: number): number {
    const frame = this.#stack.pop()!
    this.#addValue(Object.freeze(frame.container))
    return i + 1
  }

  #addValue(value: unknown): void {
    this.#changed = true
    const frame = this.#stack[this.#stack.length - 1]
    if (!frame) {
      this.#root = value
      this.#mode = M_DONE
      return
    }
    assign(frame.container, frame, value)
    frame.key = undefined
    this.#mode = M_COMMA_OR_CLOSE
  }

  #unexpected(char: string, i: number): number {
    return this.#fail(`the character ${JSON.stringify(char)}`, this.#consumed + i)
  }

  #fail(what: string, at: number): number {
    this.#failure = `Unexpected ${what} at position ${at}`
    this.#mode = M_FAILED
    return Number.POSITIVE_INFINITY
  }
}

/**
 * Parses a whole JSON text with the same rules, for the end of a call: returns the value, or
 * `{ error }` when the text is not one complete JSON value. Empty text is an empty object, as
 * models send for tools without parameters.
 */
export function finishPartialJson(parser: PartialJsonParser): { value: unknown } | { error: string } {
  if (parser.error) return { error: parser.error }
  parser.push(' ') // ends a number or literal still open at the root
  if (parser.error) return { error: parser.error }
  if (parser.done) return { value: parser.value() }
  if (parser.empty) return { value: {} }
  return { error: 'The JSON text ended before the value was complete' }
}

function rootValue(root: unknown): unknown {
  return root === NOTHING ? undefined : root
}

/** Sets a value on a container; `__proto__` as an own key, the way `JSON.parse` does. */
function assign(container: Record<string, unknown> | unknown[], frame: Frame, value: unknown): void {
  if (frame.isArray) {
    ;(container as unknown[]).push(value)
    return
  }
  const key = frame.key
  if (key === undefined) return
  if (key === '__proto__') Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true })
  else (container as Record<string, unknown>)[key] = value
}

function isNumberChar(code: number): boolean {
  // digits, `-`, `+`, `.`, `e`, `E`
  return (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2b || code === 0x2e || code === 0x65 || code === 0x45
}

function isLetter(code: number): boolean {
  return code >= 0x61 && code <= 0x7a
}
