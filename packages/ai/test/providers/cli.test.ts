import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { main } from '../../src/providers/cli.ts'
// Two tools of GitHub's MCP server (MIT), copied from the shared corpus: tests read nothing outside the repository.
const FIXTURES = fileURLToPath(new URL('../fixtures/tools/', import.meta.url))

const dir = mkdtempSync(join(tmpdir(), 'toolgate-schema-'))
function file(name: string, content: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

function run(...argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = main(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), readFile: (path) => readFileSync(path, 'utf8') })
  return { code, stdout, stderr }
}

describe('toolgate-schema', () => {
  it('prints a corpus tool converted for the target', () => {
    const { code, stdout, stderr } = run(join(FIXTURES, 'projects_write.json'), '--target', 'openai-responses', '--strict')
    expect(code).toBe(0)
    const tool = JSON.parse(stdout)
    expect(tool).toMatchObject({ type: 'function', name: 'projects_write', strict: true, parameters: { type: 'object', additionalProperties: false } })
    expect(stderr).toContain('warning ONE_OF_AS_ANY_OF /inputSchema/properties/items/items/oneOf:')
  })

  it('keeps MCP annotations and the title of a tool file', () => {
    const path = file('tool.json', { name: 'a.b', title: 'A B', description: 'd', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } })
    const { code, stdout } = run(path, '--target=mcp')
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({ name: 'a.b', title: 'A B', description: 'd', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } })
  })

  it('converts a bare schema', () => {
    const { code, stdout, stderr } = run(file('schema.json', { type: 'object', properties: { n: { type: 'integer', enum: [1, 2] } } }), '--target', 'gemini')
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({ type: 'OBJECT', properties: { n: { type: 'STRING', format: 'enum', enum: ['1', '2'] } } })
    expect(stderr).toMatch(/^warning ENUM_AS_STRINGS \/properties\/n\/enum: /)
  })

  it('exits 1 on unusable input', () => {
    expect(run(file('string.json', { type: 'string' }), '--target', 'mcp')).toMatchObject({ code: 1, stdout: '', stderr: expect.stringContaining('error ROOT_NOT_OBJECT') })
    expect(run(file('broken.json', '{ nope'), '--target', 'mcp')).toMatchObject({ code: 1, stderr: expect.stringContaining('cannot read') })
    expect(run(file('ref.json', { type: 'object', properties: { a: { $ref: '#/x' } } }), '--target', 'anthropic')).toMatchObject({ code: 1, stderr: expect.stringContaining('UNRESOLVED_REF') })
  })

  it('exits 2 on wrong usage', () => {
    expect(run().code).toBe(2)
    expect(run('x.json').stderr).toContain('--target is required')
    expect(run('x.json', '--target', 'bard').stderr).toContain('unknown target')
  })

  it('prints --help and --version on stdout', () => {
    const help = run('--help')
    expect(help).toMatchObject({ code: 0, stderr: '' })
    expect(help.stdout).toMatch(/^Usage: toolgate-schema <file.json> --target/)
    const version = run('--version')
    expect(version).toMatchObject({ code: 0, stderr: '' })
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version}\n`)
  })

  it('refuses a tool file without a name or with a misspelt inputSchema, instead of reading it as a bare schema', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } }
    const noName = run(file('no-name.json', { description: 'Search', inputSchema: schema }), '--target', 'mcp')
    expect(noName).toMatchObject({ code: 1, stdout: '' })
    expect(noName.stderr).toMatch(/no-name\.json: a tool file needs a non-empty string `name`/)
    for (const key of ['input_schema', 'inputschema', 'inputSchem', 'InputSchema', 'parameters']) {
      const misspelt = run(file(`${key}.json`, { name: 'search', description: 'Search', [key]: schema }), '--target', 'mcp')
      expect(misspelt).toMatchObject({ code: 1, stdout: '' })
      expect(misspelt.stderr).toContain(`unknown key \`${key}\`: did you mean \`inputSchema\`?`)
    }
    const nameOnly = run(file('name-only.json', { name: 'search', description: 'Search' }), '--target', 'mcp')
    expect(nameOnly).toMatchObject({ code: 1, stderr: expect.stringContaining('a tool file needs an `inputSchema`') })
    // A bare schema with a description or title is still a schema.
    expect(run(file('bare.json', { ...schema, title: 'Query', description: 'A query' }), '--target', 'mcp').code).toBe(0)
  })

  it('runs as a program', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url))
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@toolgate/source', 'src/providers/cli.ts', join(FIXTURES, 'get_me.json'), '--target', 'anthropic', '--strict'], { cwd: root, encoding: 'utf8' })
    expect(result.status).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'get_me', strict: true, input_schema: { type: 'object', properties: {}, additionalProperties: false } })
    const failed = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@toolgate/source', 'src/providers/cli.ts', file('bad.json', { type: 'array' }), '--target', 'gemini'], { cwd: root, encoding: 'utf8' })
    expect(failed.status).toBe(1)
    expect(failed.stderr).toContain('ROOT_NOT_OBJECT')
  })
})
