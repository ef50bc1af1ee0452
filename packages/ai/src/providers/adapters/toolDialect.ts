import type { ModelChunk, ModelTool } from '../../model/chatModel.ts'
import type { ProviderMetadata } from '../../protocol/messages.ts'
import { randomId } from '../../util/randomId.ts'
import { memoize } from '../cache.ts'
import { isPlainObject } from '../../util/isPlainObject.ts'
import { parseToolArguments } from '../../util/parseToolArguments.ts'
import { isSame, restore } from '../plan.ts'
import { providerToolName } from '../providerName.ts'
import { ProviderSchemaError } from '../ProviderSchemaError.ts'
import { fitRequestLimits } from '../requestLimits.ts'
import { conversionKey, resolveOptions, type ProviderOptions } from '../targets.ts'
import { convertTool, type ToolConversion } from '../toProviderTool.ts'
import type { ProviderToolMap } from '../types.ts'

/*
 * How model adapters keep provider quirks out of the runtime.
 *
 * A `ChatModel` speaks the tools' own names and argument shapes, in both directions: the runtime
 * validates, stores and streams exactly what it gets, and never hears of a provider. The adapter
 * declares each tool in the provider's dialect (renamed, schema converted, cached per tool) and
 * translates what the model sends back before it yields a chunk:
 *
 * - The name is mapped back at the call's start, so TOOL_CALL_START already names the tool.
 * - Arguments stream through untouched whenever the conversion kept the tool's shape (a `same`
 *   plan: every non-strict plain object schema, strict ones without optional properties, ...),
 *   so the browser sees them grow. When the conversion changed the shape (strict `null` for an
 *   optional property, a wrapped root, entry lists, JSON-encoded values), a call's arguments are
 *   held until it ends and sent once, mapped back: streaming the provider's shape would show the
 *   UI, typed by the tool's schema, values of another shape than the ones validated and stored.
 * - History goes out the other way: stored calls (validated, original shape) are sent under the
 *   provider's names, with a wrapped root wrapped again.
 *
 * So the model, the browser, the stored thread and a reload all agree on one shape.
 */

type Target = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'gemini-json-schema'

interface DeclaredTool {
  readonly name: string
  readonly providerName: string
  readonly conversion: ToolConversion
  /** The conversion left the arguments' shape alone: stream them as they come. */
  readonly passThrough: boolean
}

const conversions = new WeakMap<object, Map<string, ToolConversion>>()

/** A `ModelTool` converted for a target, cached per tool object (the runtime's are long-lived). */
function conversionOf(tool: ModelTool, target: Target, options: ProviderOptions<Target>): ToolConversion {
  const resolved = resolveOptions(target, options)
  return memoize(conversions, tool, conversionKey(target, resolved), () =>
    convertTool({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, outputSchema: () => undefined }, target, resolved),
  )
}

/** The tools of one request in a provider's dialect, and the way back. */
export class ToolDialect<T extends Target> {
  /** The `tools` array, in the provider's envelope. */
  readonly declarations: readonly ProviderToolMap[T][]
  readonly #target: T
  readonly #byName = new Map<string, DeclaredTool>()
  readonly #byProviderName = new Map<string, DeclaredTool>()

  constructor(tools: readonly ModelTool[], target: T, options: ProviderOptions<T>) {
    this.#target = target
    const declarations: ProviderToolMap[T][] = []
    const conversions = fitRequestLimits(
      target,
      tools.map((tool) => ({ conversion: conversionOf(tool, target, options), nonStrict: () => conversionOf(tool, target, { ...options, strict: false }) })),
    )
    for (const [index, tool] of tools.entries()) {
      const conversion = conversions[index]!
      const providerName = providerToolName(tool.name, target)
      const clash = this.#byProviderName.get(providerName)
      if (clash) {
        throw new ProviderSchemaError('NAME_COLLISION', '/name', `Tools "${clash.name}" and "${tool.name}" both go by "${providerName}" under ${target}`)
      }
      const declared = { name: tool.name, providerName, conversion, passThrough: isSame(conversion.plan) }
      this.#byName.set(tool.name, declared)
      this.#byProviderName.set(providerName, declared)
      declarations.push(conversion.result.tool as ProviderToolMap[T])
    }
    this.declarations = declarations
  }

  /** The name a call in history goes by at the provider. */
  providerName(name: string): string {
    const declared = this.#byName.get(name)
    if (declared) return declared.providerName
    // A tool no longer offered (or never offered): still a name the provider accepts.
    return name === '' ? 'unknown_tool' : providerToolName(name, this.#target)
  }

  /**
   * A stored call's arguments as the model sent them, as far as that can be rebuilt: the stored
   * ones are in the tool's own shape; a root the dialect wraps is wrapped again. Arguments that
   * are not a JSON object (the model sent broken JSON) become `{}`: providers refuse anything else.
   */
  providerArguments(name: string, text: string): Record<string, unknown> {
    const parsed = parseToolArguments(text)
    const value = parsed.ok && isPlainObject(parsed.value) ? parsed.value : {}
    const plan = this.#byName.get(name)?.conversion.plan
    return plan?.kind === 'unwrap' ? { [plan.key]: value } : value
  }

  /** Translates the tool calls of one response (see the comment at the top). */
  calls(): ToolCallTranslator {
    return new ToolCallTranslator(this.#byProviderName, this.#byName)
  }
}

interface OpenCall {
  readonly tool: DeclaredTool | undefined
  /** Arguments held back until the call ends (tools whose shape the conversion changed). */
  held: string | undefined
}

/**
 * Turns a provider's tool-call events into neutral chunks: the tool's own name, its arguments
 * streamed or held and mapped back. Every method returns the chunks to pass on.
 */
export class ToolCallTranslator {
  readonly #byProviderName: ReadonlyMap<string, DeclaredTool>
  readonly #byName: ReadonlyMap<string, DeclaredTool>
  readonly #open = new Map<string, OpenCall>()
  readonly #seen = new Set<string>()

  constructor(byProviderName: ReadonlyMap<string, DeclaredTool>, byName: ReadonlyMap<string, DeclaredTool>) {
    this.#byProviderName = byProviderName
    this.#byName = byName
  }

  /** A call starts; `id` may be missing with some OpenAI-compatible servers. Returns the id used. */
  start(id: string | undefined, providerName: string): { id: string; chunks: ModelChunk[] } {
    const callId = id && !this.#seen.has(id) ? id : randomId('call_')
    this.#seen.add(callId)
    // A model may also use a tool's own name (seen in history, or made up the same way).
    const tool = this.#byProviderName.get(providerName) ?? this.#byName.get(providerName)
    this.#open.set(callId, { tool, held: tool && !tool.passThrough ? '' : undefined })
    // A name the model made up goes to the runtime as sent: it answers "Unknown tool".
    return { id: callId, chunks: [{ type: 'tool-call-start', toolCallId: callId, toolName: tool?.name ?? providerName }] }
  }

  delta(id: string, text: string): ModelChunk[] {
    const call = this.#open.get(id)
    if (!call || text === '') return []
    if (call.held !== undefined) {
      call.held += text
      return []
    }
    return [{ type: 'tool-call-delta', toolCallId: id, delta: text }]
  }

  /** `providerMetadata` (a thought signature, say) is stored with the call and sent back with the history. */
  end(id: string, providerMetadata?: ProviderMetadata): ModelChunk[] {
    const call = this.#open.get(id)
    if (!call) return []
    this.#open.delete(id)
    const chunks: ModelChunk[] = []
    if (call.held !== undefined && call.tool) {
      const mapped = mapArguments(call.tool, call.held)
      if (mapped !== '') chunks.push({ type: 'tool-call-delta', toolCallId: id, delta: mapped })
    }
    chunks.push({ type: 'tool-call-end', toolCallId: id, ...(providerMetadata ? { providerMetadata } : {}) })
    return chunks
  }

  /** Ends every call still open, in the order they started. */
  endAll(): ModelChunk[] {
    return [...this.#open.keys()].flatMap((id) => this.end(id))
  }
}

/** The arguments in the tool's own shape, as JSON text; text that is not JSON is passed on for the runtime to report. */
function mapArguments(tool: DeclaredTool, text: string): string {
  const parsed = parseToolArguments(text)
  if (!parsed.ok) return text
  return JSON.stringify(restore(tool.conversion.plan, parsed.value, tool.conversion.defs))
}
