import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { toJsonSchemaCatalog } from './catalog.ts'
import { createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { bookings, chatTools, outbox } from './serverTools.ts'
import { chatModel } from './chatModel.ts'
import { serveStatic } from './staticFiles.ts'
import { threadStore } from './threadStore.ts'

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
const { model, label } = chatModel(process.env)
const testHooks = process.env.TOOLGATE_DEMO_TEST_HOOKS === '1'

const { store, label: storeLabel } = await threadStore(process.env)
// The devtools panel reads threads through the handler; a production deployment serves nothing for it.
const chat = toNodeHandler(createChatHandler({ model, tools: chatTools, store, devtools: process.env.NODE_ENV !== 'production' }))
const serveApp = serveStatic(fileURLToPath(new URL('../dist', import.meta.url)))
const catalog = JSON.stringify(toJsonSchemaCatalog(chatTools))

const server = createServer((request, response) => {
  const { pathname } = new URL(request.url ?? '/', 'http://localhost')
  if (pathname === '/api/chat') return chat(request, response)
  if (pathname === '/api/tools') return sendJson(response, catalog)
  // Lets the e2e suite check what a server tool really did; never exposed outside tests.
  if (pathname === '/api/outbox' && testHooks) return sendJson(response, JSON.stringify(outbox))
  if (pathname === '/api/bookings' && testHooks) return sendJson(response, JSON.stringify(bookings))
  serveApp(request, response).catch((error: unknown) => {
    console.error(error)
    response.writeHead(500).end('Internal error')
  })
})

function sendJson(response: import('node:http').ServerResponse, body: string) {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end(body)
}

server.listen(port, host, () => {
  console.log(`Toolgate demo running at http://${host === '0.0.0.0' ? 'localhost' : host}:${port}/ with ${label}; threads in ${storeLabel}`)
})
