import { isRecord } from '../../../util/isRecord.ts'
import { capText } from '../../../util/capText.ts'
import { appCall, appOfCall } from '../../claim/appCall.ts'
import { checkedThreadId } from '../../edge/requests.ts'
import { resourceContents } from '../../edge/mcpApps.ts'
import { HttpError } from '../../errors.ts'
import { MCP_APP_SERVER } from '../../events/mcpAppActivity.ts'
import { SSE_HEADERS } from '../../events/liveStream.ts'
import type { ChatConfig } from '../../options.ts'
import { startRun } from '../../run/startRun.ts'
import { loadHead } from '../../thread/thread.ts'
import { randomId } from '../../../util/randomId.ts'

// CopilotKit's MCP Apps host (`@copilotkit/mcp-apps-renderer`) sends the view's requests back to the
// agent that emitted the activity, as a `RunAgentInput` whose `forwardedProps.__proxiedMCPRequest`
// names the activity's `serverHash` and `serverId` (here: the call whose view asks) and the MCP
// request; the answer is the `result` of `RUN_FINISHED`. A view reads only its own call's app, and
// its `tools/call` is the thread's, as `POST { appCall }` makes it (claim/appCall.ts).

interface ProxiedRequest {
  readonly serverHash?: unknown
  readonly serverId?: unknown
  readonly method?: unknown
  readonly params?: unknown
}

/** Whether a `RunAgentInput` carries a view's MCP request rather than a turn. */
export function isProxiedMcpRequest(body: Record<string, unknown>): boolean {
  return isRecord(body.forwardedProps) && isRecord(body.forwardedProps.__proxiedMCPRequest)
}

/** Answers a view's `resources/read` or `tools/call`: `RUN_STARTED`, then `RUN_FINISHED` with the MCP result (or `{ error }`). */
export async function answerMcpProxy(config: ChatConfig, request: Request, body: Record<string, unknown>): Promise<Response> {
  const threadId = checkedThreadId(body.threadId)
  const runId = typeof body.runId === 'string' ? body.runId : randomId('run_')
  const proxied = (body.forwardedProps as { __proxiedMCPRequest: ProxiedRequest }).__proxiedMCPRequest
  let result: unknown
  try {
    result = await proxiedResult(config, request, threadId, proxied)
  } catch (error) {
    // A refusal is told to the view as MCP tells a failed call; anything else is the server's to report.
    if (!(error instanceof HttpError)) throw error
    result = { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] }
  }
  const frames = [
    { type: 'RUN_STARTED', threadId, runId },
    { type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'success' }, result },
  ]
  return new Response(frames.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''), { status: 200, headers: SSE_HEADERS })
}

async function proxiedResult(config: ChatConfig, request: Request, threadId: string, proxied: ProxiedRequest): Promise<unknown> {
  const { serverHash, serverId: toolCallId, method, params } = proxied
  if (serverHash !== MCP_APP_SERVER || typeof toolCallId !== 'string') throw new HttpError(404, 'MCP_APP_NOT_FOUND', 'No MCP App of this server sent that request', 'forwardedProps')
  if (method === 'ping') return {}
  if (method === 'resources/read') {
    const app = await appOfCall(config, await loadHead(config, request, threadId, 'read'), toolCallId)
    if (!isRecord(params) || params.uri !== app.uri) throw new HttpError(404, 'MCP_APP_NOT_FOUND', `The view of call "${capText(toolCallId, 64)}" reads only its own app`, 'forwardedProps')
    return resourceContents(app)
  }
  if (method !== 'tools/call') throw new HttpError(400, 'INVALID_REQUEST', 'An MCP App may send `tools/call`, `resources/read` or `ping`', 'forwardedProps')
  if (!isRecord(params) || typeof params.name !== 'string' || (params.arguments !== undefined && !isRecord(params.arguments))) {
    throw new HttpError(400, 'INVALID_REQUEST', '`tools/call` needs `name` and object `arguments`', 'forwardedProps')
  }
  const claimed = await appCall(config, request, { threadId, appCall: { toolCallId, name: params.name, arguments: params.arguments ?? {} } })
  // Its run streams to a request of its own: under `toNodeHandler` a run's frames go straight to the socket of the request that claimed it, and this one answers with the result alone.
  const own = new Request(request.url, { method: 'POST', signal: request.signal })
  return callResult(await startRun(config, { ...claimed, request: own }).text())
}

/** The app's call as `tools/call` answers it, read from its run's events: its result, or that it waits for a person in the chat. */
function callResult(stream: string): unknown {
  let result: { content: string; status?: unknown; output?: unknown } | undefined
  let failed: string | undefined
  for (const block of stream.split('\n\n')) {
    const data = block.split('\n').find((line) => line.startsWith('data: '))
    if (!data) continue
    const event = JSON.parse(data.slice(6)) as { type: string; content?: string; metadata?: { status?: unknown; output?: unknown }; message?: string }
    if (event.type === 'TOOL_CALL_RESULT') result = { content: event.content ?? '', status: event.metadata?.status, output: event.metadata?.output }
    if (event.type === 'RUN_ERROR') failed = event.message
  }
  if (result) {
    const ok = result.status === 'success'
    return { content: [{ type: 'text', text: result.content }], ...(ok && isRecord(result.output) ? { structuredContent: result.output } : {}), ...(ok ? {} : { isError: true }) }
  }
  return { isError: true, content: [{ type: 'text', text: failed ?? 'The call waits for approval in the chat' }] }
}
