import { createServer } from 'node:http'
import { createChatHandler, toNodeHandler } from '@toolgate/ai/server'
import { model, tools } from './chat.ts'

const handler = createChatHandler({ model, tools })

// Every path reaches the handler; the browser posts to /api/chat through Vite's proxy.
const port = Number(process.env.PORT ?? 3000)
createServer(toNodeHandler(handler)).listen(port, () => console.log(`API listening on http://127.0.0.1:${port}/api/chat`))
