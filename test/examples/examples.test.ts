import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'
import { appTypeDiagnostics, freePort, repoRoot } from '../helpers.ts'
// @ts-expect-error: a plain JavaScript fixture, shared with the runtime matrix
import { runTurn } from '../fixtures/turn/turn.js'

// The examples build as they would be deployed and answer a turn (a server tool, an approval, the
// approved resume) on the embedded scripted model. The Next.js one is type-checked here; Next.js
// itself builds and serves such a route, on Node and on Edge, in runtimes/next-deno.test.ts.

const examples = join(repoRoot, 'examples')
const out = join(repoRoot, 'node_modules', '.cache', 'toolgate-examples')
const answer = '{"city":"Paris","tempC":18} {"receipt":"r-Bob-250"}'

/** A `(Request) => Response` handler that forwards to `origin`, for the shared turn driver. */
const forwardTo = (send: (url: string, init: RequestInit) => Promise<Response>, origin: string) => async (request: Request) =>
  send(`${origin}${new URL(request.url).pathname}`, { method: request.method, headers: Object.fromEntries(request.headers), body: await request.text() })

let server: ChildProcess | undefined
afterAll(() => {
  server?.kill()
})

describe('examples', () => {
  it('node-hono: bundled for Node, started, answers a turn over HTTP', async () => {
    mkdirSync(out, { recursive: true })
    const bundle = join(out, 'node-hono.mjs')
    await build({ entryPoints: [join(examples, 'node-hono', 'server.ts')], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'error' })
    const port = await freePort()
    server = spawn(process.execPath, [bundle], { env: { ...process.env, PORT: String(port), OPENAI_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    await new Promise<void>((resolve, reject) => {
      server!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve())
      server!.once('exit', (code) => reject(new Error(`the example exited with ${code}`)))
    })
    expect(await runTurn(forwardTo((url, init) => fetch(url, init), `http://127.0.0.1:${port}`))).toBe(answer)
  })

  it('cloudflare-worker: bundled with the workerd and browser conditions, answers a turn in workerd', async () => {
    const bundle = await build({
      entryPoints: [join(examples, 'cloudflare-worker', 'src', 'index.ts')],
      bundle: true,
      format: 'esm',
      write: false,
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['module', 'main'],
      logLevel: 'error',
    })
    const worker = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, compatibilityDate: '2025-01-01' })
    try {
      const send = async (url: string, init: RequestInit) => (await worker.dispatchFetch(url, init as never)) as unknown as Response
      expect(await runTurn(forwardTo(send, 'http://worker.test'))).toBe(answer)
    } finally {
      await worker.dispose()
    }
  })

  it('nextjs-app-router: the route and the page type-check', () => {
    const files = ['app/api/chat/route.ts', 'app/page.tsx'].map((file) => join(examples, 'nextjs-app-router', file))
    const problems = appTypeDiagnostics(files).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
    expect(problems).toEqual([])
  })
})
