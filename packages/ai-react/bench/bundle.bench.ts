/**
 * What a chat costs a browser bundle. The same minimal React app (a message list, an input, send
 * and stop, and a client tool with a Valibot schema) is built for production with Vite four ways:
 * with React alone, with our `useChat`, with @tanstack/ai-react's and with @ai-sdk/react's. Prints
 * the gzipped JavaScript of each, what the chat adds over React alone, and the ratios to ours.
 * Two more builds explain our figure: React with the Valibot schema alone (the app's own schema),
 * and React with the tool defined by `toolDefinition` but no chat (the core's share).
 *
 * Run: tsx --conditions=@toolgate/source bench/bundle.bench.ts
 */
import { mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apps, BUDGET_KB, buildApp, repoRoot, TOOL_UI_BUDGET_KB } from './bundleApps.ts'

const workDir = await mkdtemp(join(tmpdir(), 'toolgate-bundle-'))
try {
  // The apps live outside the repository; they resolve packages through its node_modules.
  await symlink(join(repoRoot, 'node_modules'), join(workDir, 'node_modules'), 'dir')
  const results: { name: string; bytes: number; gzip: number; lazyGzip: number; ms: number }[] = []
  for (const [index, app] of apps.entries()) results.push({ name: app.name, ...(await buildApp(workDir, app, index)) })

  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  const base = results[0]!.gzip
  const byName = new Map(results.map((result) => [result.name, result]))
  const ours = byName.get('@toolgate/ai-react')!.gzip - base
  console.log('\nProduction bundle of a minimal chat app (Vite, minified; JavaScript loaded at startup, gzip)')
  console.log('app                                                   min      gzip   added (gzip)  vs ours   lazy   build')
  for (const result of results) {
    const added = result.gzip - base
    const ratio = result === results[0] ? '' : `×${(added / ours).toFixed(1)}`
    console.log(
      `${result.name.padEnd(50)} ${kb(result.bytes).padStart(9)} ${kb(result.gzip).padStart(9)} ${(result === results[0] ? '' : `+${kb(added)}`).padStart(14)} ${ratio.padStart(8)} ${(result.lazyGzip ? kb(result.lazyGzip) : '').padStart(8)} ${`${(result.ms / 1000).toFixed(1)} s`.padStart(7)}`,
    )
  }
  const added = (name: string) => byName.get(name)!.gzip - base
  const validator = byName.get('@toolgate/ai-react + a plain JSON Schema tool')!.gzip - byName.get('@toolgate/ai-react')!.gzip
  const core = added('React + toolDefinition, no chat')
  console.log(`\nours adds ${kb(ours)} (${ours} B) over React alone (budget ${BUDGET_KB} KB: ${ours <= BUDGET_KB * 1024 ? 'within' : 'OVER'})`)
  console.log(`  the app's Valibot schema: ${kb(added('React + Valibot schema'))}`)
  console.log(`  toolDefinition and the schema, without any chat: ${kb(core)} (the core's share, fixed)`)
  console.log(`  the client and the hook: ${kb(ours - core)}`)
  const toolUi = byName.get('@toolgate/ai-react + tool UI hooks (no markup)')!.gzip - byName.get('@toolgate/ai-react')!.gzip
  const dialog = byName.get('@toolgate/ai-react + approval dialog, queue, renderers')!.gzip - byName.get('@toolgate/ai-react')!.gzip
  console.log(`useApprovalForm, useApprovalQueue and renderToolCall add ${kb(toolUi)} (${toolUi} B) to useChat alone (budget ${TOOL_UI_BUDGET_KB} KB: ${toolUi <= TOOL_UI_BUDGET_KB * 1024 ? 'within' : 'OVER'}); with an app's complete dialog markup, ${kb(dialog)}`)
  console.log(`a browser tool with a plain JSON Schema (jsonSchema()) adds the validator: ${kb(validator)}; tools with a schema library add nothing`)
  const withApp = byName.get('@toolgate/ai-react + McpApp')!
  const chat = byName.get('@toolgate/ai-react')!
  console.log(`McpApp (an MCP App's host) adds ${kb(withApp.gzip - chat.gzip)} (${withApp.gzip - chat.gzip} B) at startup and ${kb(withApp.lazyGzip - chat.lazyGzip)} (${withApp.lazyGzip - chat.lazyGzip} B) on demand, when the first app mounts (ext-apps' AppBridge and the MCP protocol)`)
  console.log('  lazy: JavaScript behind dynamic imports, loaded only on demand')
  console.log(`@tanstack/ai-react adds ×${(added('@tanstack/ai-react') / ours).toFixed(1)} as much as ours, @ai-sdk/react ×${(added('@ai-sdk/react') / ours).toFixed(1)}`)
} finally {
  await rm(workDir, { recursive: true, force: true })
}
