import { chatHandler } from '../../shared/chat.ts'

// A Cloudflare Worker. A Worker's memory does not outlive a request on another isolate: in
// production give the handler a store reachable from every isolate (Redis or Postgres over HTTP).
interface Env {
  readonly OPENAI_API_KEY?: string
}

let chat: ReturnType<typeof chatHandler> | undefined

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    chat ??= chatHandler({ apiKey: env.OPENAI_API_KEY })
    const url = new URL(request.url)
    if (url.pathname === '/api/chat') return chat(request)
    return new Response('POST /api/chat', { status: 404 })
  },
}
