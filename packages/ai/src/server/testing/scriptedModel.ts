import type { ThreadAssistantMessage, ThreadMessage, ThreadToolMessage } from '../../protocol/messages.ts'
import { InvalidOptionError } from '../../errors.ts'
import type { AnyTool, InferToolName, InferToolOutput, InferToolRawInput } from '../../tools/types.ts'
import { randomId } from '../../util/randomId.ts'
import type { ChatModel, ModelChunk, ModelRequest } from '../../model/chatModel.ts'

/** The tools a script is typed against: `scriptedModel(rules, { tools })`. Without them results are `unknown`. */
type ScriptTools = readonly AnyTool[] | undefined

/** A tool call the script makes. */
export interface ScriptedCall<TTools extends ScriptTools = undefined> {
  /** A tool's name; any string, so a script can also call a tool that does not exist. */
  readonly tool: ToolNameOf<TTools> | (string & {})
  /** The arguments; streamed as JSON in several deltas. Not checked here: the runtime validates them. */
  readonly input?: unknown
  /** Argument text sent as is instead of `input` (e.g. broken JSON, to see the model corrected). */
  readonly rawArguments?: string
}

type ToolNameOf<TTools extends ScriptTools> = TTools extends readonly AnyTool[] ? InferToolName<TTools[number]> : string

interface ScriptedResultBase {
  readonly toolCallId: string
  /** The text the model reads: the output JSON, the error, or "denied by the user: …". */
  readonly content: string
  /** The user's deny reason (status `denied`). */
  readonly reason?: string
  /** The user edited the arguments before approving. */
  readonly edited: boolean
}

/** One call's result, by status: only a success has an output; an error's input may be anything the model sent. */
type ResultOf<TName extends string, TRawInput, TOutput> =
  | (ScriptedResultBase & {
      readonly tool: TName
      /** The arguments the call ran with: the user's edit, if they edited it. */
      readonly input: TRawInput
      readonly status: 'success'
      readonly ok: true
      /** The tool's output. */
      readonly output: TOutput
    })
  | (ScriptedResultBase & {
      readonly tool: TName
      /** The arguments the human was asked about. */
      readonly input: TRawInput
      /** A person said no. */
      readonly status: 'denied'
      readonly ok: false
      readonly output?: undefined
    })
  | (ScriptedResultBase & {
      readonly tool: TName
      /** The arguments the human was asked about. */
      readonly input: TRawInput
      /** No one answered in time; the tool did not run. */
      readonly status: 'expired'
      readonly ok: false
      readonly output?: undefined
    })
  | (ScriptedResultBase & {
      readonly tool: TName
      /** The arguments the human was asked about. */
      readonly input: TRawInput
      /** The turn was stopped while it waited; the tool did not run. */
      readonly status: 'cancelled'
      readonly ok: false
      readonly output?: undefined
    })
  | (ScriptedResultBase & {
      readonly tool: TName
      /** What the model sent: maybe invalid, maybe unparsable text. */
      readonly input: unknown
      readonly status: 'error'
      readonly ok: false
      readonly output?: undefined
    })

/**
 * The result of one scripted call, as the script's `then` sees it. Typed by the tools given to
 * `scriptedModel` (`r.tool === 'get_weather' && r.ok` narrows `r.output`); `unknown` values without.
 */
export type ScriptedResult<TTools extends ScriptTools = undefined> = TTools extends readonly AnyTool[]
  ? ResultOfTool<TTools[number]>
  : ResultOf<string, unknown, unknown>

/** Distributes over a union of tools, so `tool` discriminates. */
type ResultOfTool<TTool> = TTool extends AnyTool ? ResultOf<InferToolName<TTool>, InferToolRawInput<TTool>, InferToolOutput<TTool>> : never

/** The results of one round of calls: never empty, so `([first]) => first.output` needs no check. */
export type ScriptedResults<TTools extends ScriptTools = undefined> = [ScriptedResult<TTools>, ...ScriptedResult<TTools>[]]

/** What the script does next: say something, call tools, or both. */
export type ScriptedStep<TTools extends ScriptTools = undefined> =
  | string
  | { readonly text?: string; readonly call?: ScriptedCall<TTools> | readonly ScriptedCall<TTools>[] }

export interface ScriptedFollowUp<TTools extends ScriptTools = undefined> {
  /** The match of the rule's `when` against the user's message. */
  readonly match: RegExpMatchArray
  /** 1 after the first calls' results, 2 after the next, ... */
  readonly round: number
  /** Every result since the user's message, oldest first. */
  readonly history: readonly ScriptedResult<TTools>[]
}

export interface ScriptRule<TTools extends ScriptTools = undefined> {
  /** Matched against the user's latest message: a RegExp, a case-insensitive substring, or a predicate. */
  readonly when: RegExp | string | ((text: string) => boolean)
  /** The answer (or a step with calls) for a matching message. */
  readonly reply?: string | ((match: RegExpMatchArray) => ScriptedStep<TTools>)
  /** Tool calls to make; several run in parallel. */
  readonly call?: (match: RegExpMatchArray) => ScriptedCall<TTools> | readonly ScriptedCall<TTools>[]
  /** Text streamed before the calls of `call`. */
  readonly say?: string | ((match: RegExpMatchArray) => string)
  /** What follows once the calls have results: an answer, or more calls. Default: a summary of the results. */
  readonly then?: (results: ScriptedResults<TTools>, followUp: ScriptedFollowUp<TTools>) => ScriptedStep<TTools>
}

export interface ScriptedModelOptions<TTools extends ScriptTools = undefined> {
  /** The tools the script calls, for types only: results are typed by tool name. */
  readonly tools?: TTools
  /** The answer when no rule matches. */
  readonly fallback?: string | ((text: string) => string)
  /** Milliseconds between streamed chunks, so demos stream visibly. Default 0. */
  readonly delayMs?: number
  /** The model's name in usage reports. Default `scripted`. */
  readonly name?: string
}

/**
 * A deterministic `ChatModel` for tests and demos. It reads the user's latest message, picks the
 * first matching rule, and streams text word by word and tool arguments in several deltas, like a
 * real model. After tool results it calls the rule's `then` with them, so an answer can use an
 * output, an edited argument or a deny reason.
 *
 * @example
 * scriptedModel([
 *   { when: /weather in (\w+)/i, call: (m) => ({ tool: 'get_weather', input: { city: m[1] } }),
 *     then: ([r]) => (r.ok ? `It is ${r.output.tempC}°C in ${r.input.city}.` : `I could not check: ${r.content}`) },
 *   { when: /hello/i, reply: 'Hi! Ask me about the weather.' },
 * ], { fallback: 'Try "weather in Paris".', delayMs: 30 })
 */
export function scriptedModel<const TTools extends ScriptTools = undefined>(
  rules: readonly ScriptRule<TTools>[],
  options: ScriptedModelOptions<TTools> = {},
): ChatModel {
  checkScript(rules as readonly ScriptRule[], options as ScriptedModelOptions)
  return {
    name: options.name ?? 'scripted',
    stream: (request) => streamScript(rules as readonly ScriptRule[], options as ScriptedModelOptions, request),
  }
}

async function* streamScript(rules: readonly ScriptRule[], options: ScriptedModelOptions, request: ModelRequest): AsyncGenerator<ModelChunk> {
  const step = decide(rules, options, request.messages)
  const { text, calls } = typeof step === 'string' ? { text: step, calls: [] } : { text: step.text ?? '', calls: toArray(step.call) }
  const pause = () => sleep(options.delayMs ?? 0, request.signal)
  let output = 0

  for (const word of words(text)) {
    await pause()
    output += word.length
    yield { type: 'text-delta', delta: word }
  }
  for (const call of calls) {
    const toolCallId = randomId('call_')
    const args = call.rawArguments ?? JSON.stringify(call.input ?? {})
    await pause()
    yield { type: 'tool-call-start', toolCallId, toolName: call.tool }
    for (const piece of pieces(args)) {
      await pause()
      output += piece.length
      yield { type: 'tool-call-delta', toolCallId, delta: piece }
    }
    yield { type: 'tool-call-end', toolCallId }
  }
  const input = request.messages.reduce((sum, message) => sum + message.content.length, 0)
  yield {
    type: 'finish',
    reason: calls.length > 0 ? 'tool_calls' : 'stop',
    usage: { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(output / 4) },
  }
}

function decide(rules: readonly ScriptRule[], options: ScriptedModelOptions, messages: readonly ThreadMessage[]): ScriptedStep {
  const userIndex = messages.findLastIndex((message) => message.role === 'user')
  const text = userIndex >= 0 ? messages[userIndex]!.content : ''
  for (const rule of rules) {
    const match = matchRule(rule.when, text)
    if (!match) continue
    const rounds = roundsSince(messages, userIndex)
    if (rounds.length === 0) return firstStep(rule, match)
    const history = rounds.flat()
    const latest = rounds[rounds.length - 1]!
    return rule.then ? rule.then(latest, { match, round: rounds.length, history }) : summary(latest)
  }
  const { fallback } = options
  return typeof fallback === 'function' ? fallback(text) : (fallback ?? `I have no scripted answer for "${text}".`)
}

function firstStep(rule: ScriptRule, match: RegExpMatchArray): ScriptedStep {
  if (rule.call) {
    const say = typeof rule.say === 'function' ? rule.say(match) : rule.say
    return { ...(say ? { text: say } : {}), call: rule.call(match) }
  }
  return typeof rule.reply === 'function' ? rule.reply(match) : (rule.reply ?? '')
}

function matchRule(when: ScriptRule['when'], text: string): RegExpMatchArray | null {
  if (when instanceof RegExp) return text.match(when)
  const matched = typeof when === 'string' ? text.toLowerCase().includes(when.toLowerCase()) : when(text)
  return matched ? (Object.assign([text], { index: 0, input: text }) as RegExpMatchArray) : null
}

/** The results of each round of calls since the user's message (one round per assistant message with calls). */
function roundsSince(messages: readonly ThreadMessage[], userIndex: number): ScriptedResults[] {
  const rounds: ScriptedResults[] = []
  const later = messages.slice(userIndex + 1)
  for (const message of later) {
    if (message.role !== 'assistant' || message.toolCalls.length === 0) continue
    rounds.push(message.toolCalls.map((call) => toResult(call, later)) as ScriptedResults)
  }
  return rounds
}

function toResult(call: ThreadAssistantMessage['toolCalls'][number], messages: readonly ThreadMessage[]): ScriptedResult {
  const result = messages.find((message): message is ThreadToolMessage => message.role === 'tool' && message.toolCallId === call.id)
  let input: unknown = call.arguments
  try {
    input = JSON.parse(call.arguments)
  } catch {
    // Broken arguments stay as text.
  }
  const base = {
    tool: call.name,
    toolCallId: call.id,
    input,
    content: result?.content ?? '',
    ...(result?.reason === undefined ? {} : { reason: result.reason }),
    edited: result?.edited === true,
  }
  if (result?.status === 'success') return { ...base, status: 'success', ok: true, output: result.output }
  return { ...base, status: result?.status ?? 'error', ok: false }
}

function summary(results: readonly ScriptedResult[]): string {
  return results.map((r) => `${r.tool}: ${r.ok ? JSON.stringify(r.output) : r.content}`).join('\n')
}

function toArray(call: ScriptedCall | readonly ScriptedCall[] | undefined): readonly ScriptedCall[] {
  if (call === undefined) return []
  return Array.isArray(call) ? call : [call as ScriptedCall]
}

/** Words with their trailing spaces, so the deltas join back into the exact text. */
function words(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : [])
}

/** At least three pieces (when there are three characters), about 12 characters each. */
function pieces(text: string): string[] {
  const count = Math.min(text.length, Math.max(3, Math.ceil(text.length / 12)))
  const size = Math.ceil(text.length / Math.max(count, 1))
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason)
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

const WHERE = 'scriptedModel()'

/** Checks the script when the model is made, so a typo fails at startup rather than mid-chat. */
function checkScript(rules: readonly ScriptRule[], options: ScriptedModelOptions): void {
  if (!Array.isArray(rules)) throw new InvalidOptionError(WHERE, 'rules', 'must be an array of rules')
  rules.forEach((rule, index) => {
    const at = `rules[${index}]`
    if (typeof rule !== 'object' || rule === null) throw new InvalidOptionError(WHERE, at, 'must be an object')
    const { when, reply, call, say, then } = rule
    if (!(when instanceof RegExp) && typeof when !== 'string' && typeof when !== 'function') {
      throw new InvalidOptionError(WHERE, `${at}.when`, 'must be a RegExp, a string or a function')
    }
    if (reply !== undefined && typeof reply !== 'string' && typeof reply !== 'function') {
      throw new InvalidOptionError(WHERE, `${at}.reply`, 'must be a string or a function')
    }
    if (say !== undefined && typeof say !== 'string' && typeof say !== 'function') {
      throw new InvalidOptionError(WHERE, `${at}.say`, 'must be a string or a function')
    }
    if (call !== undefined && typeof call !== 'function') throw new InvalidOptionError(WHERE, `${at}.call`, 'must be a function')
    if (then !== undefined && typeof then !== 'function') throw new InvalidOptionError(WHERE, `${at}.then`, 'must be a function')
    if (reply === undefined && call === undefined) throw new InvalidOptionError(WHERE, at, 'needs a `reply` or a `call`')
  })
  if (typeof options !== 'object' || options === null) throw new InvalidOptionError(WHERE, 'options', 'must be an object')
  const { fallback, delayMs, name, tools } = options
  if (fallback !== undefined && typeof fallback !== 'string' && typeof fallback !== 'function') {
    throw new InvalidOptionError(WHERE, 'fallback', 'must be a string or a function')
  }
  if (delayMs !== undefined && !(typeof delayMs === 'number' && Number.isFinite(delayMs) && delayMs >= 0)) {
    throw new InvalidOptionError(WHERE, 'delayMs', `must be a finite number >= 0, received ${String(delayMs)}`)
  }
  if (name !== undefined && (typeof name !== 'string' || name === '')) throw new InvalidOptionError(WHERE, 'name', 'must be a non-empty string')
  if (tools !== undefined && !Array.isArray(tools)) throw new InvalidOptionError(WHERE, 'tools', 'must be an array of tools')
}
