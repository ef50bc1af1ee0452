import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bin, npmInstall, pack, repoRoot, run, tempDir } from '../helpers.ts'

// What a user installs: both packages packed by `npm pack`, installed into a fresh project beside
// its own valibot and a second package ("weather-tools") that also depends on @toolgate/ai and
// publishes tools. The project is type-checked and a turn (server tool + approval) runs in Node.
const turnFixtures = join(repoRoot, 'test', 'fixtures', 'turn')
let root: string
let app: string

const writeJson = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2))

beforeAll(() => {
  root = tempDir('tarballs')
  const ai = pack('ai', root)
  const aiReact = pack('ai-react', root)

  const lib = join(root, 'weather-tools')
  mkdirSync(lib)
  writeJson(join(lib, 'package.json'), {
    name: 'weather-tools', version: '1.0.0', type: 'module', main: 'tools.js',
    dependencies: { '@toolgate/ai': `file:${ai}`, valibot: '^1.5.0' },
  })
  cpSync(join(turnFixtures, 'tools.js'), join(lib, 'tools.js'))

  app = join(root, 'app')
  mkdirSync(app)
  writeJson(join(app, 'package.json'), {
    name: 'app', private: true, type: 'module',
    dependencies: {
      '@toolgate/ai': `file:${ai}`, '@toolgate/ai-react': `file:${aiReact}`, 'weather-tools': `file:${lib}`,
      valibot: '^1.5.0', react: '^19.0.0', '@types/react': '^19.0.0', '@types/node': '^20.19.0',
    },
  })
  // The directory dependency is installed as a copy, the way a published package would be.
  writeFileSync(join(app, '.npmrc'), 'install-links=true\n')
  writeJson(join(app, 'tsconfig.json'), {
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, jsx: 'react-jsx',
      noEmit: true, skipLibCheck: false, allowJs: true, maxNodeModuleJsDepth: 1, lib: ['ES2022', 'DOM'],
      types: ['node'],
    },
    include: ['*.ts', '*.tsx'],
  })
  const handler = readFileSync(join(turnFixtures, 'handler.js'), 'utf8').replace("'./tools.js'", "'weather-tools'")
  writeFileSync(join(app, 'handler.js'), handler)
  cpSync(join(turnFixtures, 'turn.js'), join(app, 'turn.js'))
  writeFileSync(join(app, 'main.ts'), [
    "import { makeHandler } from './handler.js'",
    "import { runTurn } from './turn.js'",
    'console.log(await runTurn(makeHandler()))',
  ].join('\n'))
  // The React side, type-checked against the published declarations: tool parts narrow by name.
  writeFileSync(join(app, 'chat.tsx'), [
    "import { useChat } from '@toolgate/ai-react'",
    "import { weatherDef } from 'weather-tools'",
    'const tools = [weatherDef] as const',
    'export function Chat() {',
    "  const { messages } = useChat({ endpoint: '/api/chat', tools })",
    '  const cities: string[] = []',
    '  for (const message of messages) for (const part of message.parts) {',
    "    if (part.type === 'tool-call' && part.toolName === 'get_weather' && part.input) cities.push(part.input.city ?? '')",
    '  }',
    '  return <p>{cities.join()}</p>',
    '}',
  ].join('\n'))
  npmInstall(app)
})

afterAll(() => rmSync(root, { recursive: true, force: true }))

const runApp = () => run(bin('tsx'), ['main.ts'], { cwd: app })

describe('packed tarballs in a fresh project', () => {
  it('type-check against the published declarations', () => {
    expect(() => run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: app })).not.toThrow()
  })

  it('install one copy of @toolgate/ai for the app, ai-react (a peer) and the tool library', () => {
    const aiReact = JSON.parse(readFileSync(join(app, 'node_modules/@toolgate/ai-react/package.json'), 'utf8'))
    expect(aiReact.peerDependencies['@toolgate/ai']).toBeDefined()
    expect(aiReact.dependencies?.['@toolgate/ai']).toBeUndefined()
    const copies = run('find', ['node_modules', '-path', '*/@toolgate/ai/package.json'], { cwd: app }).trim().split('\n')
    expect(copies).toEqual(['node_modules/@toolgate/ai/package.json'])
  })

  it('run a turn with tools from another package: server tool, approval, resume', () => {
    expect(runApp().trim()).toBe('{"city":"Paris","tempC":18} {"receipt":"r-Bob-250"}')
  })

  it('accept tools from a second, compatible copy (a nested install)', () => {
    const nested = join(app, 'node_modules/weather-tools/node_modules/@toolgate/ai')
    cpSync(join(app, 'node_modules/@toolgate/ai'), nested, { recursive: true })
    try {
      expect(runApp().trim()).toBe('{"city":"Paris","tempC":18} {"receipt":"r-Bob-250"}')
    } finally {
      run('rm', ['-rf', join(app, 'node_modules/weather-tools/node_modules')])
    }
  })

  it('fail loudly with DUPLICATE_PACKAGE on tools from an incompatible copy', () => {
    const nested = join(app, 'node_modules/weather-tools/node_modules/@toolgate/ai')
    cpSync(join(app, 'node_modules/@toolgate/ai'), nested, { recursive: true })
    // A future version whose tool internals have another shape.
    const internals = join(nested, 'dist/tools/internals.js')
    const source = readFileSync(internals, 'utf8')
    expect(source).toMatch(/const FORMAT = 1;/)
    writeFileSync(internals, source.replace('const FORMAT = 1;', 'const FORMAT = 2;'))
    try {
      expect(runApp).toThrow(/DUPLICATE_PACKAGE[\s\S]*incompatible copy of @toolgate\/ai[\s\S]*npm dedupe|incompatible copy of @toolgate\/ai/)
    } finally {
      run('rm', ['-rf', join(app, 'node_modules/weather-tools/node_modules')])
    }
  })
})
