import {
  context,
  createTraceState,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type AttributeValue,
  type Attributes,
  type Context,
  type Link,
  type MeterProvider,
  type Span,
  type TextMapGetter,
  type TracerProvider,
} from '@opentelemetry/api'
import { randomId } from '../util/randomId.ts'
import { GEN_AI, METRICS, TOOLGATE } from './attributes.ts'
import type { DecisionSummary } from '../protocol/decisions.ts'
import type { AgentInfo, AskedInterrupt, ChatTelemetry, EndedWait, ModelCallEnd, ModelOutput, RunEnd, RunInfo, RunTrace, ToolCallInfo } from './hooks.ts'
import { registerTraceMeta } from './traceMeta.ts'
import { formatTraceparent, parseTraceparent } from './traceparent.ts'

// The one module that imports `@opentelemetry/api` (an optional peer): the chat handler and the
// MCP interop only call the `ChatTelemetry` it returns. Spans are parented explicitly (request →
// run → model call / tool call), so the trace holds together without a context manager; with one,
// a tool's own spans and its outgoing MCP calls nest under its `execute_tool` span.

export interface OpenTelemetryOptions {
  /** Where spans go. Default: the global provider (`trace.setGlobalTracerProvider`, or the SDK's `NodeSDK`). */
  readonly tracerProvider?: TracerProvider
  /** Where metrics go. Default: the global provider. */
  readonly meterProvider?: MeterProvider
  /**
   * Record what goes in: tool arguments (`gen_ai.tool.call.arguments`) and the messages sent to
   * the model (`gen_ai.input.messages`). Default `false`: names and ids only. They may hold
   * personal data; turn this on only where your traces may keep it.
   */
  readonly recordInputs?: boolean
  /** Record what comes out: tool outputs (`gen_ai.tool.call.result`) and the model's reply (`gen_ai.output.messages`). Default `false`. */
  readonly recordOutputs?: boolean
  /** `gen_ai.agent.name` of runs (their spans are `invoke_agent <name>`). */
  readonly agentName?: string
  /** `toolgate.instance.id`: which process asked, answered, ran. Default: a random id per `openTelemetry()` call. */
  readonly instanceId?: string
}

const SCOPE = '@toolgate/ai'

/** A model's metric attributes: its calls, and its input and output tokens. */
interface ModelMetricAttributes {
  readonly base: Attributes
  readonly input: Attributes
  readonly output: Attributes
}

/** A request's headers as a propagator reads them: one at a time, through the handler's `header` when it has one. */
interface IncomingHeaders {
  readonly request: Request
  readonly header: (name: string) => string | null
}

const headerGetter: TextMapGetter<IncomingHeaders> = {
  keys: ({ request }) => [...request.headers.keys()],
  get: ({ header }, key) => header(key) ?? undefined,
}

const recordGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => (typeof carrier[key] === 'string' ? (carrier[key] as string) : undefined),
}

/**
 * Traces and metrics for the chat handler (`createChatHandler({ telemetry: openTelemetry() })`)
 * and MCP servers (`registerMcpTools(server, tools, { telemetry })`), on `@opentelemetry/api`.
 * Spans: the request, the run (`invoke_agent`), each model call (`chat <model>`), each server tool
 * call (`execute_tool <tool>`), and each wait for a human or the browser (`wait_for_approval
 * <tool>`, `wait_for_client_tool <tool>`), which ends wherever and whenever the answer lands.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): ChatTelemetry {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE)
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE)
  const instance = options.instanceId ?? randomId('instance_')
  const recordInputs = options.recordInputs === true
  const recordOutputs = options.recordOutputs === true
  const agentName = options.agentName
  const runName = agentName ? `invoke_agent ${agentName}` : 'invoke_agent'

  const runs = meter.createCounter(METRICS.runs, { description: 'Runs, by how they ended', unit: '{run}' })
  const toolCalls = meter.createCounter(METRICS.toolCalls, { description: 'Tool calls, by outcome', unit: '{call}' })
  const waitDuration = meter.createHistogram(METRICS.waitDuration, { description: 'How long interrupts waited for a human or the browser', unit: 's' })
  const tokenUsage = meter.createHistogram(METRICS.tokenUsage, { description: 'Tokens per model call', unit: '{token}' })
  const operationDuration = meter.createHistogram(METRICS.operationDuration, { description: 'Model call duration', unit: 's' })
  const timeToFirstChunk = meter.createHistogram(METRICS.timeToFirstChunk, { description: 'Time to the model’s first chunk', unit: 's' })

  /** The request span of each request in flight, the context it started in, and (once a run asks) the context its children start in. */
  const requests = new WeakMap<Request, { readonly span: Span; readonly parent: Context; child?: Context }>()

  // Metric attributes are the same few sets over and over: made once each, so recording a point
  // builds no object (the SDK hashes them on every record).
  const modelMetrics = new Map<string | undefined, ModelMetricAttributes>()
  const modelMetricsOf = (model: string | undefined): ModelMetricAttributes => {
    let found = modelMetrics.get(model)
    if (!found) {
      const base: Attributes = model === undefined ? { [GEN_AI.operation]: 'chat' } : { [GEN_AI.operation]: 'chat', [GEN_AI.requestModel]: model }
      found = { base, input: { ...base, [GEN_AI.tokenType]: 'input' }, output: { ...base, [GEN_AI.tokenType]: 'output' } }
      modelMetrics.set(model, found)
    }
    return found
  }
  const toolMetrics = new Map<string, Map<string, Attributes>>()
  const toolMetricsOf = (toolName: string, outcome: string): Attributes => {
    let byOutcome = toolMetrics.get(toolName)
    if (!byOutcome) toolMetrics.set(toolName, (byOutcome = new Map()))
    let found = byOutcome.get(outcome)
    if (!found) byOutcome.set(outcome, (found = { [GEN_AI.toolName]: toolName, [TOOLGATE.toolOutcome]: outcome }))
    return found
  }
  const runMetrics = new Map<string, Attributes>()
  const runMetricsOf = (outcome: string): Attributes => {
    let found = runMetrics.get(outcome)
    if (!found) runMetrics.set(outcome, (found = { [TOOLGATE.runOutcome]: outcome }))
    return found
  }

  registerTraceMeta(() => {
    const carrier: Record<string, string> = {}
    const active = context.active()
    propagation.inject(active, carrier)
    if (carrier.traceparent === undefined) {
      const spanContext = trace.getSpan(active)?.spanContext()
      if (spanContext && trace.isSpanContextValid(spanContext)) carrier.traceparent = formatTraceparent(spanContext)
    }
    return Object.keys(carrier).length > 0 ? carrier : undefined
  })

  const requestContext = (request: Request): Context => {
    const entry = requests.get(request)
    if (!entry) return incomingContext({ request, header: (name) => request.headers.get(name) })
    return (entry.child ??= trace.setSpan(entry.parent, entry.span))
  }

  return {
    requestStarted(request, header) {
      const parent = incomingContext({ request, header: header ?? ((name) => request.headers.get(name)) })
      const span = tracer.startSpan(
        request.method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': pathOf(request.url), [TOOLGATE.instance]: instance } },
        parent,
      )
      requests.set(request, { span, parent })
    },

    describeRequest(request, { kind, threadId }) {
      const span = requests.get(request)?.span
      if (!span) return
      span.updateName(`${request.method} ${kind}`)
      span.setAttribute(TOOLGATE.requestKind, kind)
      if (threadId !== undefined) span.setAttribute(TOOLGATE.thread, threadId).setAttribute(GEN_AI.conversation, threadId)
    },

    requestEnded(request, status, errorCode) {
      const entry = requests.get(request)
      if (!entry) return
      requests.delete(request)
      entry.span.setAttribute('http.response.status_code', status)
      if (errorCode !== undefined) entry.span.setAttributes({ 'error.type': status >= 500 ? String(status) : errorCode, [TOOLGATE.errorCode]: errorCode })
      if (status >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode ?? String(status) })
      entry.span.end()
    },

    run(request, info) {
      return runTrace(requestContext(request), info)
    },

    waitsEnded(request, waits) {
      const answering = requests.get(request)?.span.spanContext()
      for (const wait of waits) endWait(wait, answering && trace.isSpanContextValid(answering) ? answering : undefined)
    },

    async mcpToolCall(call, execute) {
      const parent = metaContext(call.meta) ?? context.active()
      const span = tracer.startSpan(
        `execute_tool ${call.toolName}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            [GEN_AI.operation]: 'execute_tool',
            [GEN_AI.toolName]: call.toolName,
            [GEN_AI.toolCallId]: call.toolCallId,
            [GEN_AI.toolType]: 'function',
            'mcp.method.name': 'tools/call',
            [TOOLGATE.instance]: instance,
          },
        },
        parent,
      )
      try {
        const result = await context.with(trace.setSpan(parent, span), execute)
        // A 2026-07-28 approval round: the call asked the user and ran nothing (its retry is a span of its own).
        if (result.resultType === 'input_required') {
          span.setAttribute(TOOLGATE.toolOutcome, 'input_required')
          return result
        }
        const outcome = result.isError ? 'error' : 'success'
        span.setAttribute(TOOLGATE.toolOutcome, outcome)
        // The text of an MCP error result may quote the tool's exception: only its kind is recorded.
        if (result.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: 'The tool returned an error result' })
        toolCalls.add(1, toolMetricsOf(call.toolName, outcome))
        return result
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'The tool call failed' })
        span.setAttribute('error.type', error instanceof Error ? error.name : 'Error')
        throw error
      } finally {
        span.end()
      }
    },
  }

  function runTrace(parent: Context, info: RunInfo, agent?: AgentInfo): RunTrace {
    const { threadId, model } = info
    const attributes: Attributes = {
      [GEN_AI.operation]: 'invoke_agent',
      [GEN_AI.conversation]: threadId,
      [TOOLGATE.thread]: threadId,
      [TOOLGATE.run]: info.runId,
      [TOOLGATE.runKind]: info.kind,
      [TOOLGATE.instance]: instance,
    }
    put(attributes, GEN_AI.agentName, agent ? agent.name : agentName)
    put(attributes, GEN_AI.requestModel, model)
    put(attributes, TOOLGATE.store, info.store)
    put(attributes, TOOLGATE.openInterrupts, info.open)
    if (agent) {
      attributes[TOOLGATE.subagentRun] = agent.subagentRunId
      attributes[TOOLGATE.subagentDepth] = agent.depth
    }
    const links = agent ? undefined : resumeLinks(info.resumes)
    const name = agent ? `invoke_agent ${agent.name}` : runName
    const span = tracer.startSpan(name, links ? { kind: SpanKind.INTERNAL, links, attributes } : { kind: SpanKind.INTERNAL, attributes }, parent)
    const runContext = trace.setSpan(parent, span)
    // What every model call of the run starts with (the SDK copies a span's attributes).
    const callName = model ? `chat ${model}` : 'chat'
    const callAttributes: Attributes = { [GEN_AI.operation]: 'chat', [GEN_AI.conversation]: threadId }
    put(callAttributes, GEN_AI.requestModel, model)
    const callMetrics = modelMetricsOf(model)
    let traceparent: string | undefined | null = null
    return {
      // Read only when the run asks for a human or the browser: most runs never format it.
      get traceparent() {
        if (traceparent === null) {
          const spanContext = span.spanContext()
          traceparent = trace.isSpanContextValid(spanContext) ? formatTraceparent(spanContext) : undefined
        }
        return traceparent
      },

      modelCall(messages) {
        const callSpan = tracer.startSpan(
          callName,
          { kind: SpanKind.CLIENT, attributes: recordInputs ? { ...callAttributes, [GEN_AI.inputMessages]: json(messages) } : callAttributes },
          runContext,
        )
        const started = performance.now()
        let first = false
        return {
          firstChunk() {
            if (first) return
            first = true
            timeToFirstChunk.record((performance.now() - started) / 1000, callMetrics.base)
          },
          end(end: ModelCallEnd) {
            const { usage, finishReason, error } = end
            const ended: Attributes = {}
            if (usage) {
              put(ended, GEN_AI.inputTokens, usage.inputTokens)
              put(ended, GEN_AI.outputTokens, usage.outputTokens)
              put(ended, GEN_AI.cachedInputTokens, usage.cachedInputTokens)
              if (usage.inputTokens !== undefined) tokenUsage.record(usage.inputTokens, callMetrics.input)
              if (usage.outputTokens !== undefined) tokenUsage.record(usage.outputTokens, callMetrics.output)
            }
            if (finishReason !== undefined) ended[GEN_AI.finishReasons] = [finishReason]
            if (recordOutputs && end.output) ended[GEN_AI.outputMessages] = json([outputMessage(end.output(), finishReason)])
            if (error) {
              ended['error.type'] = error.type
              callSpan.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
            }
            callSpan.setAttributes(ended)
            operationDuration.record((performance.now() - started) / 1000, error ? { ...callMetrics.base, 'error.type': error.type } : callMetrics.base)
            callSpan.end()
          },
        }
      },

      async toolCall(call: ToolCallInfo, execute) {
        const attributes: Attributes = {
          [GEN_AI.operation]: 'execute_tool',
          [GEN_AI.toolName]: call.toolName,
          [GEN_AI.toolCallId]: call.toolCallId,
          [GEN_AI.toolType]: 'function',
          [GEN_AI.conversation]: threadId,
        }
        if (recordInputs) attributes[GEN_AI.toolArguments] = json(call.input)
        if (call.decision) {
          attributes[TOOLGATE.callDecision] = call.decision.decision
          putDecision(attributes, call.decision)
          // The grant a call ran under; an approval that made a grant shows it on its wait span.
          if (call.decision.decision === 'granted') put(attributes, TOOLGATE.grant, call.decision.grantId)
        }
        const toolSpan = tracer.startSpan(`execute_tool ${call.toolName}`, { kind: SpanKind.INTERNAL, attributes }, runContext)
        try {
          // Inside the span's context, so the tool's own spans and its outgoing MCP calls nest under it.
          const toolContext = trace.setSpan(runContext, toolSpan)
          let waits = false
          const result = await context.with(toolContext, () =>
            execute({ agent: (agent) => runTrace(toolContext, { ...info, model: undefined, open: undefined, resumes: [] }, agent), waits: () => void (waits = true) }),
          )
          // An agent's call whose subagent waits for answers has no outcome yet: neither a success nor an error.
          if (waits) {
            toolSpan.setAttribute(TOOLGATE.toolOutcome, 'waiting')
            return result
          }
          const outcome = result.status === 'success' ? 'success' : 'error'
          toolSpan.setAttribute(TOOLGATE.toolOutcome, outcome)
          if (recordOutputs) toolSpan.setAttribute(GEN_AI.toolResult, result.content)
          // The result's text is what the model and the browser read: `toolErrorMessage`'s mapping,
          // or a generic line, never the exception `onError` receives.
          if (result.status === 'error') {
            toolSpan.setAttribute('error.type', 'tool_error')
            toolSpan.setStatus({ code: SpanStatusCode.ERROR, message: result.content })
          }
          toolCalls.add(1, toolMetricsOf(call.toolName, outcome))
          return result
        } finally {
          toolSpan.end()
        }
      },

      end(end: RunEnd) {
        const { outcome, usage, error } = end
        const ended: Attributes = { [TOOLGATE.runOutcome]: outcome }
        if (usage) {
          put(ended, GEN_AI.inputTokens, usage.inputTokens)
          put(ended, GEN_AI.outputTokens, usage.outputTokens)
        }
        if (error) {
          ended['error.type'] = error.code
          ended[TOOLGATE.errorCode] = error.code
          span.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
        }
        span.setAttributes(ended)
        if (!agent) runs.add(1, runMetricsOf(outcome))
        span.end()
      },
    }
  }

  /**
   * Who made a decision, by the principal's id (what the app's `identify` knows them by); their
   * display name is personal data, recorded only with `recordInputs`.
   */
  function putDecision(attributes: Attributes, record: DecisionSummary): void {
    attributes[TOOLGATE.decidedBy] = record.by.id
    if (recordInputs) put(attributes, TOOLGATE.decidedByName, record.by.name)
    attributes[TOOLGATE.decisionChannel] = record.channel
  }

  /**
   * A wait is one span from the moment its interrupt was asked (stored with it) to now, or to its
   * expiry, made by whichever instance ends it: its parent is the run that asked, its link the
   * request that answered.
   */
  function endWait(wait: EndedWait, answering: Link['context'] | undefined): void {
    const { interrupt, decision, endedAt } = wait
    const asked = parseTraceparent(interrupt.traceparent)
    const parent = asked ? trace.setSpanContext(ROOT_CONTEXT, { ...asked, isRemote: true }) : ROOT_CONTEXT
    const startedAt = interrupt.askedAt ?? endedAt
    const approval = interrupt.reason === 'tool_approval'
    const span = tracer.startSpan(
      `${approval ? 'wait_for_approval' : 'wait_for_client_tool'} ${interrupt.toolName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: startedAt,
        links: answering ? [{ context: answering, attributes: { [TOOLGATE.linkType]: 'answered_by' } }] : [],
        attributes: waitAttributes(wait),
      },
      parent,
    )
    span.end(endedAt)
    waitDuration.record(Math.max(0, endedAt - startedAt) / 1000, { [TOOLGATE.interruptReason]: interrupt.reason, [TOOLGATE.decision]: decision })
    if (approval && (decision === 'denied' || decision === 'superseded' || decision === 'expired' || decision === 'cancelled')) {
      toolCalls.add(1, toolMetricsOf(interrupt.toolName, decision))
    }
  }

  function waitAttributes({ interrupt, decision, threadId, record, approvers }: EndedWait): Attributes {
    const attributes: Attributes = {
      [TOOLGATE.interruptId]: interrupt.id,
      [TOOLGATE.interruptReason]: interrupt.reason,
      [TOOLGATE.decision]: decision,
      [TOOLGATE.thread]: threadId,
      [TOOLGATE.instance]: instance,
      [GEN_AI.conversation]: threadId,
      [GEN_AI.toolName]: interrupt.toolName,
      [GEN_AI.toolCallId]: interrupt.toolCallId,
    }
    put(attributes, TOOLGATE.expiresAt, interrupt.expiresAt)
    if (record) {
      putDecision(attributes, record)
      put(attributes, TOOLGATE.grant, record.grantId) // the grant this approval made
    }
    if (approvers) attributes[TOOLGATE.approvers] = [...approvers]
    return attributes
  }
}

/** The context a request's span starts in: a span already active (HTTP instrumentation), else the request's `traceparent`. */
function incomingContext(headers: IncomingHeaders): Context {
  const active = context.active()
  if (trace.getSpan(active)) return active
  const extracted = propagation.extract(ROOT_CONTEXT, headers, headerGetter)
  if (trace.getSpan(extracted)) return extracted
  const traceparent = headers.header('traceparent')
  return (traceparent !== null && remoteContext(traceparent, headers.header('tracestate'))) || ROOT_CONTEXT
}

/** A request URL's path, without parsing the whole URL (the handler gets an absolute one). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  let end = start
  while (end < url.length && url[end] !== '?' && url[end] !== '#') end++
  return url.slice(start, end)
}

/** The trace context an MCP request carries in `_meta`, if any. */
function metaContext(meta: unknown): Context | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined
  const carrier = meta as Record<string, unknown>
  const extracted = propagation.extract(ROOT_CONTEXT, carrier, recordGetter)
  if (trace.getSpan(extracted)) return extracted
  return remoteContext(carrier.traceparent, carrier.tracestate)
}

/** Read by hand when no propagator is registered: W3C Trace Context is what every caller sends. */
function remoteContext(traceparent: unknown, tracestate: unknown): Context | undefined {
  const parsed = parseTraceparent(traceparent)
  if (!parsed) return undefined
  const traceState = typeof tracestate === 'string' && tracestate !== '' ? createTraceState(tracestate) : undefined
  return trace.setSpanContext(ROOT_CONTEXT, { ...parsed, isRemote: true, ...(traceState ? { traceState } : {}) })
}

/** A resumed run links to each run that asked what it settles (once per run). */
function resumeLinks(resumes: readonly AskedInterrupt[]): Link[] | undefined {
  if (resumes.length === 0) return undefined
  const seen = new Set<string>()
  const links: Link[] = []
  for (const interrupt of resumes) {
    const parsed = parseTraceparent(interrupt.traceparent)
    if (!parsed || seen.has(parsed.spanId)) continue
    seen.add(parsed.spanId)
    links.push({ context: { ...parsed, isRemote: true }, attributes: { [TOOLGATE.linkType]: 'resumes' } })
  }
  return links
}

function outputMessage(output: ModelOutput, finishReason: string | undefined): unknown {
  return {
    role: 'assistant',
    parts: [
      ...(output.text === '' ? [] : [{ type: 'text', content: output.text }]),
      ...output.toolCalls.map((call) => ({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments })),
    ],
    ...(finishReason === undefined ? {} : { finish_reason: finishReason }),
  }
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null'
  } catch {
    return '"[not JSON]"'
  }
}

function put(attributes: Attributes, key: string, value: AttributeValue | undefined): void {
  if (value !== undefined) attributes[key] = value
}
