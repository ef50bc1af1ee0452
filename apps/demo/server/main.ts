import { createServer } from 'node:http'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { roomBookings } from './roomsApp.ts'
import { fileURLToPath } from 'node:url'
import { toJsonSchemaCatalog } from './catalog.ts'
import { createChatHandler, toNodeHandler, type ApprovalRequest, type ThreadAction } from '@toolgate/ai/server'
import type { Principal } from '@toolgate/ai/protocol'
import { bookings, chatTools, outbox } from './serverTools.ts'
import { researchAssistant } from './researchAssistant.ts'
import { chatModel } from './chatModel.ts'
import { serveStatic } from './staticFiles.ts'
import { SettingError, threadStore } from './threadStore.ts'

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
const { model, label } = chatModel(process.env)
const testHooks = process.env.TOOLGATE_DEMO_TEST_HOOKS === '1'
// The chat's tools, and a subagent (an agent tool) that runs on the same model.
const tools = [...chatTools, researchAssistant(model)]

const { store, label: storeLabel } = await threadStore(process.env).catch((error: unknown) => {
  // A setting the demo cannot use is one line naming it, not a stack trace.
  if (!(error instanceof SettingError)) throw error
  console.error(`[demo] ${error.message}`)
  process.exit(1)
})
// Demo identities: a cookie the header's switcher sets stands in for the app's own sign-in.
const PEOPLE: Record<string, Principal> = {
  alice: { id: 'alice', name: 'Alice', roles: ['staff'] },
  bob: { id: 'bob', name: 'Bob', roles: ['staff', 'finance'] },
}
const personOf = (request: Request) => PEOPLE[/(?:^|;\s*)demo_user=(\w+)/.exec(request.headers.get('cookie') ?? '')?.[1] ?? 'alice']

/**
 * Who may open a thread: each person their own threads (they sent its messages), and the threads
 * they review: read while a call waits for them or once they decided one, write (their answer)
 * while a call waits for them. Anyone may start a thread.
 */
async function mayAccess(person: Principal, threadId: string, action: ThreadAction): Promise<boolean> {
  if (action === 'create') return true
  const head = await store.head(threadId)
  if (!head) return true // the handler answers 404
  if (head.turnBy === undefined || head.turnBy.id === person.id) return true
  const waitsForThem = (head.step?.interrupts ?? []).some(({ reviewers, answer }) => answer === undefined && reviewers !== undefined && (reviewers.users?.includes(person.id) || reviewers.roles?.some((role) => person.roles?.includes(role))))
  if (waitsForThem) return true
  return action === 'read' && (await handler.decisions(threadId)).some((record) => record.by.id === person.id)
}

/** What onApprovalRequested handed the app: the demo's outbox of review links (a real app posts them to Slack or email). */
const reviewOutbox: ApprovalRequest[] = []

const handler = createChatHandler({
  model,
  tools,
  // AG-UI frontend tools a page may declare and run itself (CopilotKit's useFrontendTool and
  // useHumanInTheLoop in e2e/frontends/copilotkit/); the demo's own UI declares none.
  frontendTools: ['set_background', 'confirm_plan'],
  store,
  identify: personOf,
  authorize: (request, threadId, { action }) => mayAccess(personOf(request) ?? { id: 'anonymous' }, threadId, action),
  reviewLinks: { secret: process.env.REVIEW_LINK_SECRET ?? 'toolgate-demo-review-secret-not-for-production', url: (token) => `/review?token=${token}` },
  onApprovalRequested: (request) => void reviewOutbox.unshift(request),
  // The devtools panel reads threads through the handler; a production deployment serves nothing for it.
  devtools: process.env.NODE_ENV !== 'production',
})
const chat = toNodeHandler(handler)
const serveApp = serveStatic(fileURLToPath(new URL('../dist', import.meta.url)))
const catalog = JSON.stringify(toJsonSchemaCatalog(tools))
const mcpAppSandbox = readFile(createRequire(import.meta.url).resolve('@toolgate/ai-react/mcp-app-sandbox.html'), 'utf8')

const server = createServer((request, response) => {
  const { pathname } = new URL(request.url ?? '/', 'http://localhost')
  if (pathname === '/api/chat') return chat(request, response)
  if (pathname === '/api/tools') return sendJson(response, catalog)
  if (pathname === '/api/reviews') return sendJson(response, JSON.stringify(reviewOutbox))
  // The grants of a thread ("Allow for this conversation"), for the chat to show each with a revoke.
  if (pathname === '/api/grants') return void grantsOf(request, new URL(request.url ?? '/', 'http://localhost').searchParams.get('threadId'), response)
  // Lets the e2e suite check what a server tool really did; never exposed outside tests.
  if (pathname === '/api/outbox' && testHooks) return sendJson(response, JSON.stringify(outbox))
  if (pathname === '/api/bookings' && testHooks) return sendJson(response, JSON.stringify(bookings))
  if (pathname === '/api/room-bookings' && testHooks) return sendJson(response, JSON.stringify(roomBookings))
  // The MCP App sandbox proxy, for chat pages of another origin (a page on localhost frames it from 127.0.0.1, and the reverse).
  if (pathname === '/mcp-app-sandbox.html') return void mcpAppSandbox.then((html) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(html))
  serveApp(request, response).catch((error: unknown) => {
    console.error(error)
    response.writeHead(500).end('Internal error')
  })
})

async function grantsOf(request: import('node:http').IncomingMessage, threadId: string | null, response: import('node:http').ServerResponse) {
  try {
    const person = PEOPLE[/(?:^|;\s*)demo_user=(\w+)/.exec(request.headers.cookie ?? '')?.[1] ?? 'alice'] ?? { id: 'anonymous' }
    const allowed = threadId !== null && (await mayAccess(person, threadId, 'read'))
    sendJson(response, JSON.stringify(allowed ? await handler.grants(threadId) : []))
  } catch {
    sendJson(response, '[]') // an unknown thread has none
  }
}

function sendJson(response: import('node:http').ServerResponse, body: string) {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end(body)
}

server.listen(port, host, () => {
  console.log(`Toolgate demo running at http://${host === '0.0.0.0' ? 'localhost' : host}:${port}/ with ${label}; threads in ${storeLabel}`)
})
