import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, npmInstall, pack, repoRoot, run, tempDir } from '../helpers.ts'
// @ts-expect-error: a plain JavaScript fixture, shared with the other runtimes
import { runTurn } from '../fixtures/turn/turn.js'

// The rest of the runtime matrix: Deno, and a Next.js App Router app with the handler on the Node
// and on the Edge runtime, built by `next build` and served by `next start`. Both are installed
// into a fresh project at test time beside the packed @toolgate/ai (their npm packages carry their
// binaries; as devDependencies of this repository they would break `npm ci`, whose lockfile cannot
// hold platform packages this registry does not serve).

const fixtures = join(repoRoot, 'test', 'fixtures', 'turn')
const answer = '{"city":"Paris","tempC":18} {"receipt":"r-Bob-250"}'
let project: string
let server: ChildProcess | undefined
let origin: string

beforeAll(async () => {
  project = tempDir('next-deno')
  const ai = pack('ai', project)
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'runtimes', private: true, type: 'module',
      dependencies: { '@toolgate/ai': `file:${ai}`, valibot: '^1.5.0', next: '^15.5.0', react: '^19.0.0', 'react-dom': '^19.0.0', deno: '^2.9.0' },
    }),
  )
  npmInstall(project)
  for (const file of ['handler.js', 'tools.js', 'turn.js', 'main.js']) cpSync(join(fixtures, file), join(project, file))
  mkdirSync(join(project, 'app', 'api', 'node'), { recursive: true })
  mkdirSync(join(project, 'app', 'api', 'edge'), { recursive: true })
  writeFileSync(join(project, 'app', 'layout.js'), 'export default function Layout({ children }) { return <html><body>{children}</body></html> }\n')
  writeFileSync(join(project, 'app', 'page.js'), 'export default function Page() { return <p>chat</p> }\n')
  const route = (runtime: string) =>
    `import { makeHandler } from '../../../handler.js'\nexport const runtime = '${runtime}'\nconst chat = makeHandler()\nexport const POST = (request) => chat(request)\n`
  writeFileSync(join(project, 'app', 'api', 'node', 'route.js'), route('nodejs'))
  writeFileSync(join(project, 'app', 'api', 'edge', 'route.js'), route('edge'))
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }
  run(join(project, 'node_modules', '.bin', 'next'), ['build'], { cwd: project, env })
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  server = spawn(join(project, 'node_modules', '.bin', 'next'), ['start', '-p', String(port), '-H', '127.0.0.1'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] })
  await new Promise<void>((resolve, reject) => {
    server!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('Ready') && resolve())
    server!.once('exit', (code) => reject(new Error(`next start exited with ${code}`)))
  })
})

afterAll(() => {
  server?.kill()
  if (project) rmSync(project, { recursive: true, force: true })
})

const through = (path: string) => async (request: Request) =>
  fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await request.text() })

describe('runtime matrix, installed at test time', () => {
  it('Deno', () => {
    const deno = join(project, 'node_modules', '.bin', 'deno')
    expect(run(deno, ['run', '--allow-read', '--allow-env', 'main.js'], { cwd: project, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' } }).trim()).toBe(answer)
  })

  it('Next.js App Router, Node runtime', async () => {
    expect(await runTurn(through('/api/node'))).toBe(answer)
  })

  it('Next.js App Router, Edge runtime (the browser and edge conditions resolve; the server entry still gets the real emitter)', async () => {
    expect(await runTurn(through('/api/edge'))).toBe(answer)
  })
})
