// Attribute and metric names. GenAI semantic conventions where they say something
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/), `toolgate.*` where they do not: the wait
// for a human or the browser, the thread, the run, the instance.

export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  conversation: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  requestModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cachedInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  tokenType: 'gen_ai.token.type',
} as const

export const TOOLGATE = {
  thread: 'toolgate.thread.id',
  run: 'toolgate.run.id',
  runKind: 'toolgate.run.kind',
  runOutcome: 'toolgate.run.outcome',
  store: 'toolgate.store',
  instance: 'toolgate.instance.id',
  requestKind: 'toolgate.request.kind',
  errorCode: 'toolgate.error.code',
  toolOutcome: 'toolgate.tool.outcome',
  interruptId: 'toolgate.interrupt.id',
  interruptReason: 'toolgate.interrupt.reason',
  decision: 'toolgate.interrupt.decision',
  expiresAt: 'toolgate.interrupt.expires_at',
  openInterrupts: 'toolgate.interrupt.open_count',
  // The decision record behind a wait's end or a call's run: what, who (the principal's id from
  // `identify`; the display name only with `recordInputs`), through what channel, under which grant.
  callDecision: 'toolgate.decision',
  decidedBy: 'toolgate.decision.by.id',
  decidedByName: 'toolgate.decision.by.name',
  decisionChannel: 'toolgate.decision.channel',
  approvers: 'toolgate.decision.approvers',
  grant: 'toolgate.grant.id',
  linkType: 'toolgate.link.type',
  // A subagent's `invoke_agent` span (an agent tool's call): its invocation and how deep it nests.
  subagentRun: 'toolgate.subagent.run.id',
  subagentDepth: 'toolgate.subagent.depth',
} as const

export const METRICS = {
  runs: 'toolgate.runs',
  toolCalls: 'toolgate.tool.calls',
  waitDuration: 'toolgate.interrupt.wait.duration',
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  timeToFirstChunk: 'gen_ai.client.operation.time_to_first_chunk',
} as const
