import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot, run } from '../helpers.ts'

// `npm run docs` builds the API reference from the sources' TSDoc (TypeDoc, warnings are errors).
describe('the API reference', () => {
  it('builds, with every entry point and the main functions', () => {
    run('npm', ['run', 'docs', '--silent'], { cwd: repoRoot })
    const out = join(repoRoot, 'docs', 'api')
    expect(existsSync(join(out, 'index.html'))).toBe(true)
    const functions = readdirSync(join(out, 'functions')).join(' ')
    for (const name of ['toolDefinition', 'createChatHandler', 'createChatClient', 'useChat', 'useApprovalForm', 'toProviderTool', 'anthropicModel', 'redisStore']) {
      expect(functions).toMatch(new RegExp(`\\b${name}\\.html`))
    }
    expect(readFileSync(join(out, 'modules.html'), 'utf8')).toMatch(/server\/redis|interop\/mcp/)
  })
})
