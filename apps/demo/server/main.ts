import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { toolJsonSchema } from '@toolgate/ai'
import { demoTools } from '../src/tools.ts'
import { serveStatic } from './staticFiles.ts'

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
const dist = fileURLToPath(new URL('../dist', import.meta.url))
const serveApp = serveStatic(dist)

const toolCatalog = JSON.stringify(
  demoTools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    needsApproval: typeof tool.needsApproval === 'function' ? 'policy' : tool.needsApproval,
    metadata: tool.metadata,
    inputSchema: toolJsonSchema(tool),
  })),
)

const server = createServer((request, response) => {
  if (request.url === '/api/tools') {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(toolCatalog)
    return
  }
  serveApp(request, response).catch((error: unknown) => {
    console.error(error)
    response.writeHead(500).end('Internal error')
  })
})

server.listen(port, host, () => {
  console.log(`Toolgate demo running at http://${host === '0.0.0.0' ? 'localhost' : host}:${port}/`)
})
