// @vitest-environment node
import { mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apps, BUDGET_KB, buildApp, repoRoot, TOOL_UI_BUDGET_KB } from '../bench/bundleApps.ts'

// The budget of bench/bundle.bench.ts as a rule: the same apps, built for production with Vite,
// and what `useChat` (with a Valibot client tool) adds to a page's startup JavaScript, gzipped.
// A size, not a timing: the same sources always build to the same bytes.
describe('the browser bundle', () => {
  let workDir: string
  const built = async (name: string) => {
    const index = apps.findIndex((app) => app.name === name)
    return buildApp(workDir, apps[index]!, index)
  }
  const gzipOf = async (name: string) => (await built(name)).gzip

  const nodeEnv = process.env.NODE_ENV
  beforeAll(async () => {
    // Vite builds production React, as the bench does, only when NODE_ENV says so (vitest sets `test`).
    process.env.NODE_ENV = 'production'
    workDir = await mkdtemp(join(tmpdir(), 'toolgate-bundle-budget-'))
    // The apps live outside the repository; they resolve packages through its node_modules.
    await symlink(join(repoRoot, 'node_modules'), join(workDir, 'node_modules'), 'dir')
  })
  afterAll(async () => {
    process.env.NODE_ENV = nodeEnv
    await rm(workDir, { recursive: true, force: true })
  })

  it(`useChat adds at most ${BUDGET_KB} KB to React alone, and the tool UI hooks at most ${TOOL_UI_BUDGET_KB} KB more`, async () => {
    const react = await gzipOf('React alone')
    const chat = await gzipOf('@toolgate/ai-react')
    const toolUi = await gzipOf('@toolgate/ai-react + tool UI hooks (no markup)')
    expect(chat - react).toBeLessThanOrEqual(BUDGET_KB * 1024)
    expect(toolUi - chat).toBeLessThanOrEqual(TOOL_UI_BUDGET_KB * 1024)
  }, 120_000)

  it('McpApp adds at most 1 KB at startup: the MCP Apps bridge loads when the first app mounts', async () => {
    const chat = await built('@toolgate/ai-react')
    const withApp = await built('@toolgate/ai-react + McpApp')
    expect(withApp.gzip - chat.gzip).toBeLessThanOrEqual(1024)
    // The bridge (ext-apps' AppBridge and the MCP protocol) is there, behind a dynamic import.
    expect(withApp.lazyGzip - chat.lazyGzip).toBeGreaterThan(20 * 1024)
  }, 120_000)
})
