import {
  context,
  createTraceState,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
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
import type { AskedInterrupt, ChatTelemetry, EndedWait, ModelCallEnd, RunEnd, RunInfo, RunTrace, ToolCallInfo } from './hooks.ts'
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

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
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

  const runs = meter.createCounter(METRICS.runs, { description: 'Runs, by how they ended', unit: '{run}' })
  const toolCalls = meter.createCounter(METRICS.toolCalls, { description: 'Tool calls, by outcome', unit: '{call}' })
  const waitDuration = meter.createHistogram(METRICS.waitDuration, { description: 'How long interrupts waited for a human or the browser', unit: 's' })
  const tokenUsage = meter.createHistogram(METRICS.tokenUsage, { description: 'Tokens per model call', unit: '{token}' })
  const operationDuration = meter.createHistogram(METRICS.operationDuration, { description: 'Model call duration', unit: 's' })
  const timeToFirstChunk = meter.createHistogram(METRICS.timeToFirstChunk, { description: 'Time to the model’s first chunk', unit: 's' })

  /** The request span of each request in flight, and the context its children start in. */
  const requests = new WeakMap<Request, { readonly span: Span; readonly context: Context }>()

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

  const requestContext = (request: Request): Context => requests.get(request)?.context ?? incomingContext(request)

  return {
    requestStarted(request) {
      const parent = incomingContext(request)
      const url = new URL(request.url)
      const span = tracer.startSpan(
        request.method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': url.pathname, [TOOLGATE.instance]: instance } },
        parent,
      )
      requests.set(request, { span, context: trace.setSpan(parent, span) })
    },

    describeRequest(request, { kind, threadId }) {
      const span = requests.get(request)?.span
      if (!span) return
      span.updateName(`${request.method} ${kind}`)
      span.setAttribute(TOOLGATE.requestKind, kind)
      if (threadId !== undefined) span.setAttributes({ [TOOLGATE.thread]: threadId, [GEN_AI.conversation]: threadId })
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
        const outcome = result.isError ? 'error' : 'success'
        span.setAttribute(TOOLGATE.toolOutcome, outcome)
        // The text of an MCP error result may quote the tool's exception: only its kind is recorded.
        if (result.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: 'The tool returned an error result' })
        toolCalls.add(1, { [GEN_AI.toolName]: call.toolName, [TOOLGATE.toolOutcome]: outcome })
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

  function runTrace(parent: Context, info: RunInfo): RunTrace {
    const links = resumeLinks(info.resumes)
    const span = tracer.startSpan(
      agentName ? `invoke_agent ${agentName}` : 'invoke_agent',
      {
        kind: SpanKind.INTERNAL,
        links,
        attributes: defined({
          [GEN_AI.operation]: 'invoke_agent',
          [GEN_AI.conversation]: info.threadId,
          [GEN_AI.agentName]: agentName,
          [GEN_AI.requestModel]: info.model,
          [TOOLGATE.thread]: info.threadId,
          [TOOLGATE.run]: info.runId,
          [TOOLGATE.runKind]: info.kind,
          [TOOLGATE.store]: info.store,
          [TOOLGATE.instance]: instance,
          [TOOLGATE.openInterrupts]: info.open,
        }),
      },
      parent,
    )
    const runContext = trace.setSpan(parent, span)
    const spanContext = span.spanContext()
    return {
      traceparent: trace.isSpanContextValid(spanContext) ? formatTraceparent(spanContext) : undefined,

      modelCall(messages) {
        const model = info.model
        const callSpan = tracer.startSpan(
          model ? `chat ${model}` : 'chat',
          {
            kind: SpanKind.CLIENT,
            attributes: defined({
              [GEN_AI.operation]: 'chat',
              [GEN_AI.requestModel]: model,
              [GEN_AI.conversation]: info.threadId,
              [GEN_AI.inputMessages]: recordInputs ? json(messages) : undefined,
            }),
          },
          runContext,
        )
        const started = performance.now()
        let first: number | undefined
        const metricAttributes = defined({ [GEN_AI.operation]: 'chat', [GEN_AI.requestModel]: model })
        return {
          firstChunk() {
            if (first !== undefined) return
            first = performance.now()
            timeToFirstChunk.record((first - started) / 1000, metricAttributes)
          },
          end(end: ModelCallEnd) {
            const { usage, finishReason, output, error } = end
            callSpan.setAttributes(
              defined({
                [GEN_AI.inputTokens]: usage?.inputTokens,
                [GEN_AI.outputTokens]: usage?.outputTokens,
                [GEN_AI.cachedInputTokens]: usage?.cachedInputTokens,
                [GEN_AI.outputMessages]: recordOutputs && output ? json([outputMessage(output, finishReason)]) : undefined,
              }),
            )
            if (finishReason !== undefined) callSpan.setAttribute(GEN_AI.finishReasons, [finishReason])
            if (usage?.inputTokens !== undefined) tokenUsage.record(usage.inputTokens, { ...metricAttributes, [GEN_AI.tokenType]: 'input' })
            if (usage?.outputTokens !== undefined) tokenUsage.record(usage.outputTokens, { ...metricAttributes, [GEN_AI.tokenType]: 'output' })
            if (error) {
              callSpan.setAttribute('error.type', error.type)
              callSpan.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
            }
            operationDuration.record((performance.now() - started) / 1000, error ? { ...metricAttributes, 'error.type': error.type } : metricAttributes)
            callSpan.end()
          },
        }
      },

      async toolCall(call: ToolCallInfo, execute) {
        const toolSpan = tracer.startSpan(
          `execute_tool ${call.toolName}`,
          {
            kind: SpanKind.INTERNAL,
            attributes: defined({
              [GEN_AI.operation]: 'execute_tool',
              [GEN_AI.toolName]: call.toolName,
              [GEN_AI.toolCallId]: call.toolCallId,
              [GEN_AI.toolType]: 'function',
              [GEN_AI.conversation]: info.threadId,
              [GEN_AI.toolArguments]: recordInputs ? json(call.input) : undefined,
              ...decisionAttributes(call.decision),
              [TOOLGATE.callDecision]: call.decision?.decision,
            }),
          },
          runContext,
        )
        try {
          const result = await context.with(trace.setSpan(runContext, toolSpan), execute)
          const outcome = result.status === 'success' ? 'success' : 'error'
          toolSpan.setAttribute(TOOLGATE.toolOutcome, outcome)
          if (recordOutputs) toolSpan.setAttribute(GEN_AI.toolResult, result.content)
          // The result's text is what the model and the browser read: `toolErrorMessage`'s mapping,
          // or a generic line, never the exception `onError` receives.
          if (result.status === 'error') {
            toolSpan.setAttribute('error.type', 'tool_error')
            toolSpan.setStatus({ code: SpanStatusCode.ERROR, message: result.content })
          }
          toolCalls.add(1, { [GEN_AI.toolName]: call.toolName, [TOOLGATE.toolOutcome]: outcome })
          return result
        } finally {
          toolSpan.end()
        }
      },

      end(end: RunEnd) {
        const { outcome, usage, error } = end
        span.setAttributes(
          defined({ [TOOLGATE.runOutcome]: outcome, [GEN_AI.inputTokens]: usage?.inputTokens, [GEN_AI.outputTokens]: usage?.outputTokens }),
        )
        if (error) {
          span.setAttributes({ 'error.type': error.code, [TOOLGATE.errorCode]: error.code })
          span.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
        }
        runs.add(1, { [TOOLGATE.runOutcome]: outcome })
        span.end()
      },
    }
  }

  /**
   * Who made a decision, by the principal's id (what the app's `identify` knows them by); their
   * display name is personal data, recorded only with `recordInputs`.
   */
  function decisionAttributes(record: DecisionSummary | undefined): Record<string, string | undefined> {
    if (!record) return {}
    return {
      [TOOLGATE.decidedBy]: record.by.id,
      [TOOLGATE.decidedByName]: recordInputs ? record.by.name : undefined,
      [TOOLGATE.decisionChannel]: record.channel,
      [TOOLGATE.grant]: record.grantId,
    }
  }

  /**
   * A wait is one span from the moment its interrupt was asked (stored with it) to now, or to its
   * expiry, made by whichever instance ends it: its parent is the run that asked, its link the
   * request that answered.
   */
  function endWait(wait: EndedWait, answering: Link['context'] | undefined): void {
    const { interrupt, decision, endedAt, threadId } = wait
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
        attributes: defined({
          [TOOLGATE.interruptId]: interrupt.id,
          [TOOLGATE.interruptReason]: interrupt.reason,
          [TOOLGATE.decision]: decision,
          [TOOLGATE.expiresAt]: interrupt.expiresAt,
          [TOOLGATE.thread]: threadId,
          [TOOLGATE.instance]: instance,
          [GEN_AI.conversation]: threadId,
          [GEN_AI.toolName]: interrupt.toolName,
          [GEN_AI.toolCallId]: interrupt.toolCallId,
          ...decisionAttributes(wait.record),
        }),
      },
      parent,
    )
    if (wait.approvers) span.setAttribute(TOOLGATE.approvers, [...wait.approvers])
    span.end(endedAt)
    waitDuration.record(Math.max(0, endedAt - startedAt) / 1000, { [TOOLGATE.interruptReason]: interrupt.reason, [TOOLGATE.decision]: decision })
    if (approval && (decision === 'denied' || decision === 'superseded' || decision === 'expired' || decision === 'cancelled')) {
      toolCalls.add(1, { [GEN_AI.toolName]: interrupt.toolName, [TOOLGATE.toolOutcome]: decision })
    }
  }
}

/** The context a request's span starts in: a span already active (HTTP instrumentation), else the request's `traceparent`. */
function incomingContext(request: Request): Context {
  const active = context.active()
  if (trace.getSpan(active)) return active
  const extracted = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter)
  if (trace.getSpan(extracted)) return extracted
  return remoteContext(request.headers.get('traceparent'), request.headers.get('tracestate')) ?? ROOT_CONTEXT
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
function resumeLinks(resumes: readonly AskedInterrupt[]): Link[] {
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

function outputMessage(output: NonNullable<ModelCallEnd['output']>, finishReason: string | undefined): unknown {
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

function defined(attributes: Record<string, string | number | boolean | undefined>): Attributes {
  const kept: Attributes = {}
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) kept[key] = value
  return kept
}
