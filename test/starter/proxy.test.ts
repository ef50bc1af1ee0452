import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer, type ViteDevServer } from 'vite'
import { afterAll, describe, expect, it } from 'vitest'
import { createChatClient } from '@toolgate/ai/client'
import { freePort, tempDir } from '../helpers.ts'

// What a newcomer meets when the page's dev server and the chat server do not line up, with
// Vite's own dev server in front: the errors name the request and say what to fix.

const root = tempDir('proxy')
mkdirSync(root, { recursive: true })
writeFileSync(join(root, 'index.html'), '<!doctype html><title>page</title>')
const servers: ViteDevServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
  rmSync(root, { recursive: true, force: true })
})

async function vite(proxy: Record<string, string> | undefined): Promise<string> {
  const port = await freePort()
  const server = await createServer({ root, configFile: false, logLevel: 'silent', server: { port, strictPort: true, host: '127.0.0.1', ...(proxy ? { proxy } : {}) } })
  servers.push(server)
  await server.listen()
  return `http://127.0.0.1:${port}`
}

const chatAt = (endpoint: string) => createChatClient({ endpoint, scheduleNotify: (flush) => flush() })

describe('the chat client behind a Vite dev server', () => {
  it('with the proxy set but the chat server down: UNREACHABLE, saying the server behind the proxy did not answer', async () => {
    const origin = await vite({ '/api': `http://127.0.0.1:${await freePort()}` }) // nothing listens there
    const chat = chatAt(`${origin}/api/chat`)
    await chat.send('hello')
    expect(chat.getSnapshot().error).toMatchObject({
      code: 'UNREACHABLE',
      status: 502,
      message: expect.stringMatching(new RegExp(`^POST ${origin}/api/chat answered HTTP 502.*: the server behind the proxy did not answer\\. Start the chat server`)),
    })
  })

  it('without a proxy: BAD_RESPONSE naming the URL and the fix, not INTERNAL', async () => {
    const origin = await vite(undefined)
    const chat = chatAt(`${origin}/api/chat`)
    await chat.send('hello')
    const error = chat.getSnapshot().error
    expect(error?.code).toBe('BAD_RESPONSE')
    expect(error?.message).toContain(`POST ${origin}/api/chat answered HTTP 404`)
    expect(error?.message).toContain("server.proxy: { '/api': 'http://127.0.0.1:3000' }")
  })
})
