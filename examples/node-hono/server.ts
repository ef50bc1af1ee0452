import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { chatHandler } from '../shared/chat.ts'

// A Node server with Hono: the chat handler takes the Fetch Request as it is.
const chat = chatHandler({ apiKey: process.env.OPENAI_API_KEY })
const app = new Hono()
app.all('/api/chat', (c) => chat(c.req.raw))
app.get('/', (c) => c.text('POST /api/chat { "message": "weather in Paris and send 250 to Bob" }'))

const port = Number(process.env.PORT ?? 3000)
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => console.log(`listening on http://127.0.0.1:${info.port}`))
