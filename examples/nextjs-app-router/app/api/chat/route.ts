import { chatHandler } from '../../../../shared/chat.ts'

// app/api/chat/route.ts. The same handler on the Node runtime or on the Edge runtime
// (`export const runtime = 'edge'`): it is a Fetch handler and imports nothing Node-only.
const chat = chatHandler({ apiKey: process.env.OPENAI_API_KEY })

export const GET = (request: Request): Promise<Response> => chat(request)
export const POST = (request: Request): Promise<Response> => chat(request)
