import type { ThreadAssistantMessage, ThreadMessage, ThreadToolMessage } from '../protocol/messages.ts'
import { randomId } from '../util/randomId.ts'
import type { ChatModel, ModelChunk, ModelRequest } from '../model/chatModel.ts'

/** A tool call the script makes. */
export interface ScriptedCall {
  readonly tool: string
  /** The arguments; streamed as JSON in several deltas. */
  readonly input?: unknown
  /** Argument text sent as is instead of `input` (e.g. broken JSON, to see the model corrected). */
  readonly rawArguments?: string
}

/** The result of one scripted call, as the script's `then` sees it. */
export interface ScriptedResult {
  readonly tool: string
  readonly toolCallId: string
  /** The arguments the call ran with: the user's edit, if they edited it. */
  readonly input: any
  readonly status: 'success' | 'error' | 'denied'
  readonly ok: boolean
  /** The tool's output (status `success`). */
  readonly output: any
  /** The text the model reads: the output JSON, the error, or "denied by the user: …". */
  readonly content: string
  /** The user's deny reason (status `denied`). */
  readonly reason?: string
  /** The user edited the arguments before approving. */
  readonly edited: boolean
}

/** The results of one round of calls: never empty, so `([first]) => first.output` needs no check. */
export type ScriptedResults = [ScriptedResult, ...ScriptedResult[]]

/** What the script does next: say something, call tools, or both. */
export type ScriptedStep = string | { readonly text?: string; readonly call?: ScriptedCall | readonly ScriptedCall[] }

export interface ScriptedFollowUp {
  /** The match of the rule's `when` against the user's message. */
  readonly match: RegExpMatchArray
  /** 1 after the first calls' results, 2 after the next, ... */
  readonly round: number
  /** Every result since the user's message, oldest first. */
  readonly history: readonly ScriptedResult[]
}

export interface ScriptRule {
  /** Matched against the user's latest message: a RegExp, a case-insensitive substring, or a predicate. */
  readonly when: RegExp | string | ((text: string) => boolean)
  /** The answer (or a step with calls) for a matching message. */
  readonly reply?: string | ((match: RegExpMatchArray) => ScriptedStep)
  /** Tool calls to make; several run in parallel. */
  readonly call?: (match: RegExpMatchArray) => ScriptedCall | readonly ScriptedCall[]
  /** Text streamed before the calls of `call`. */
  readonly say?: string | ((match: RegExpMatchArray) => string)
  /** What follows once the calls have results: an answer, or more calls. Default: a summary of the results. */
  readonly then?: (results: ScriptedResults, followUp: ScriptedFollowUp) => ScriptedStep
}

export interface ScriptedModelOptions {
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
export function scriptedModel(rules: readonly ScriptRule[], options: ScriptedModelOptions = {}): ChatModel {
  return {
    name: options.name ?? 'scripted',
    stream: (request) => streamScript(rules, options, request),
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
  return {
    tool: call.name,
    toolCallId: call.id,
    input,
    status: result?.status ?? 'error',
    ok: result?.status === 'success',
    output: result?.output,
    content: result?.content ?? '',
    ...(result?.reason === undefined ? {} : { reason: result.reason }),
    edited: result?.edited === true,
  }
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
