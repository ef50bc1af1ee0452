import { readFile } from 'node:fs/promises'
import { extname, join, normalize, sep } from 'node:path'
import type { IncomingMessage, ServerResponse } from 'node:http'

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
}

/** Serves the built app; unknown paths fall back to index.html so client routes survive a reload. */
export function serveStatic(root: string) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname)
    const file = normalize(join(root, pathname))
    const inside = file.startsWith(root + sep)
    const body = (inside && extname(file) && (await readFile(file).catch(() => undefined))) || (await readFile(join(root, 'index.html')))
    const type = inside && extname(file) && body ? CONTENT_TYPES[extname(file)] : CONTENT_TYPES['.html']
    response.writeHead(200, {
      'content-type': type ?? 'application/octet-stream',
      'cache-control': pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    })
    response.end(body)
  }
}
