import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { chromium as playwright, type Browser } from '@playwright/test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium } from '../../e2e/chromium.ts'
import { codeBlocks } from '../docs/blocks.ts'
import { bin, freePort, npmInstall, pack, run, tempDir } from '../helpers.ts'

// The starter of docs/getting-started.md as a reader gets it: the guide's code blocks written into
// an empty folder (the test takes the code from the guide, not from examples/starter), the packed
// packages installed, type-checked and built, `npm run dev` started as the guide says, and one
// approval turn driven through the page in Chromium.

let root: string
let app: string
let dev: ChildProcess | undefined
let browser: Browser | undefined
let output = ''

const files = codeBlocks('docs/getting-started.md').flatMap((block) =>
  block.file?.startsWith('examples/starter/') ? [{ path: block.file.slice('examples/starter/'.length), code: block.code }] : [])

beforeAll(() => {
  root = tempDir('starter')
  const tarballs = { '@toolgate/ai': pack('ai', root), '@toolgate/ai-react': pack('ai-react', root) }
  app = join(root, 'app')
  for (const file of files) {
    mkdirSync(dirname(join(app, file.path)), { recursive: true })
    writeFileSync(join(app, file.path), file.code)
  }
  // The one change to what the guide shows: the packages come from the tarballs, not the registry.
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'))
  for (const [name, tarball] of Object.entries(tarballs)) manifest.dependencies[name] = `file:${tarball}`
  writeFileSync(join(app, 'package.json'), JSON.stringify(manifest, null, 2))
  npmInstall(app)
})

afterAll(async () => {
  await browser?.close()
  // `npm run dev` leads a process group (concurrently, tsx, vite): end all of it.
  if (dev?.pid) {
    try {
      process.kill(-dev.pid, 'SIGTERM')
    } catch {}
  }
  rmSync(root, { recursive: true, force: true })
})

/** Resolves once `npm run dev` has printed `pattern`; rejects if it exits first. */
function printed(pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => pattern.test(output.replace(/\x1b\[[0-9;]*m/g, '')) && resolve()
    dev!.stdout!.on('data', check)
    dev!.once('exit', (code) => reject(new Error(`npm run dev exited with ${code}:\n${output}`)))
    check()
  })
}

describe('the starter of docs/getting-started.md, from the packed packages', () => {
  it('holds every file the guide shows', () => {
    expect(files.map((file) => file.path).sort()).toEqual(
      ['chat.ts', 'index.html', 'package.json', 'server.ts', 'src/App.tsx', 'src/main.tsx', 'src/tools.ts', 'tsconfig.json', 'vite.config.ts'])
  })

  it('type-checks and builds', () => {
    expect(() => run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: app })).not.toThrow()
    expect(run('npm', ['run', 'build'], { cwd: app })).toMatch(/built in/)
  })

  it('npm run dev serves the page, the proxy reaches the server, and an email is approved in Chromium', async () => {
    const [api, web] = [await freePort(), await freePort()]
    const env = { ...process.env, PORT: String(api), WEB_PORT: String(web), OPENAI_API_KEY: '' }
    dev = spawn('npm', ['run', 'dev'], { cwd: app, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    for (const stream of [dev.stdout!, dev.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await Promise.all([printed(/API listening/), printed(/Local:/)])

    browser = await playwright.launch(chromium)
    const page = await browser.newPage()
    await page.goto(`http://localhost:${web}/`)
    await page.getByPlaceholder('Try "email bob@example.com"').fill('email bob@example.com')
    await page.getByRole('button', { name: 'Send' }).click()
    await expect.poll(() => page.getByText('Allow send_email? bob@example.com is outside the company').count()).toBe(1)
    await page.getByRole('button', { name: 'Approve' }).click()
    await expect.poll(() => page.getByText('Email sent to bob@example.com.').count()).toBe(1)
    expect(await page.locator('p', { hasText: 'send_email' }).innerText()).toBe('send_email: output-available')
    expect(output).toContain('(pretend) sending "Hello" to bob@example.com')
  })
})
