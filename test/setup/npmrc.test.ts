import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bin, npmInstall, repoRoot, tempDir } from '../helpers.ts'

// The README's quick start (`npm ci && npm run demo`, `npm ci && npm test`) under a user's npm
// configuration that would break it: each setting below, put in the user's ~/.npmrc (here through
// npm_config_userconfig), broke one of the two commands on a fresh clone before the repository's
// .npmrc. `npm ci --dry-run` lists what `npm ci` would install without installing it (offline, a
// few seconds), in a copy of the repository's manifests: the lockfile, package.json files, .npmrc.

const execFileAsync = promisify(execFile)
const manifests = [
  'package.json',
  'package-lock.json',
  '.npmrc',
  ...(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces.map((workspace) => join(workspace, 'package.json')),
]

let project: string
let userConfigs = 0

/** Runs npm in the copy with `settings` as the user's ~/.npmrc and none of the caller's npm_config_* variables. */
async function npm(args: readonly string[], settings: readonly string[], env: Record<string, string> = {}, cwd = project) {
  const userconfig = join(project, '..', `user-${userConfigs++}.npmrc`)
  writeFileSync(userconfig, settings.join('\n') + '\n')
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key) && key !== 'NODE_ENV'))
  try {
    const { stdout } = await execFileAsync('npm', args, {
      cwd,
      encoding: 'utf8',
      env: { ...inherited, npm_config_userconfig: userconfig, npm_config_update_notifier: 'false', ...env },
    })
    return { status: 0, stdout }
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string }
    return { status: code, stdout: `${stdout}\n${stderr}` }
  }
}

/** What `npm ci` would install: its `add <name> <version>` lines, sorted. */
async function wouldInstall(settings: readonly string[], env?: Record<string, string>) {
  const { status, stdout } = await npm(['ci', '--dry-run', '--offline', '--no-audit', '--no-fund'], settings, env)
  return { status, stdout, added: stdout.split('\n').filter((line) => line.startsWith('add ')).sort() }
}

describe("the quick start under a user's npm configuration", () => {
  let neutral: readonly string[]
  beforeAll(async () => {
    project = join(tempDir('npmrc'), 'repo')
    for (const file of manifests) {
      if (!existsSync(join(repoRoot, file))) continue
      mkdirSync(join(project, file, '..'), { recursive: true })
      copyFileSync(join(repoRoot, file), join(project, file))
    }
    const { status, added, stdout } = await wouldInstall([])
    expect(status, stdout).toBe(0)
    neutral = added
  })
  afterAll(() => rmSync(join(project, '..'), { recursive: true, force: true }))

  it('installs what the demo and the tests load with no user settings', () => {
    const names = new Set(neutral.map((line) => line.split(' ')[1]))
    for (const name of ['vite', 'tsx', 'vitest', 'dependency-cruiser', '@playwright/test', '@testing-library/dom', '@toolgate/ai']) expect(names).toContain(name)
  })

  // The tree `npm ci` installs: a setting that leaves packages out shows here. All at once, to
  // keep this cheap: each of them alone broke the quick start.
  it('npm ci installs the same packages under settings that leave some out', async () => {
    const hostile = [
      'omit[]=dev', // 151 of 1,442 packages: no vite, tsx, vitest
      'omit[]=optional', // no native binding for Vite's rolldown and lightningcss
      'omit[]=peer', // no @testing-library/dom
      'legacy-peer-deps=true', // no @testing-library/dom either
      'workspaces=false', // the root's dependencies alone
      'strict-allow-scripts=true', // ESTRICTALLOWSCRIPTS unless package.json's allowScripts covers every install script
    ]
    // NODE_ENV=production makes omit=dev npm's default.
    const { status, added, stdout } = await wouldInstall(hostile, { NODE_ENV: 'production' })
    expect(status, stdout).toBe(0)
    expect(added).toEqual(neutral)
  })

  // What the tree cannot show: how npm installs it and runs scripts.
  const hostile = ['ignore-scripts=true', 'engine-strict=true', 'install-strategy=linked', 'include-workspace-root=true', 'dry-run=true', 'before=2025-06-01']
  const keys = ['ignore-scripts', 'engine-strict', 'install-strategy', 'include-workspace-root', 'dry-run', 'before']
  const needed = ['ignore-scripts=false', 'engine-strict=false', 'install-strategy=hoisted', 'include-workspace-root=false', 'dry-run=false', 'before=null']
  it('keeps the settings npm ci and npm run need, whatever the user set', async () => {
    const { status, stdout } = await npm(['config', 'get', ...keys], hostile)
    expect(status, stdout).toBe(0)
    expect(stdout.trim().split('\n')).toEqual(needed)
  })

  // The packed packages' tests install fresh projects outside the repository, out of its .npmrc's reach
  // (with install-strategy=linked, test/packages/tarballs.test.ts found its copy of @toolgate/ai elsewhere).
  it("gives the tests' fresh projects the same settings", async () => {
    const fresh = tempDir('npmrc-fresh')
    writeFileSync(join(fresh, 'package.json'), JSON.stringify({ name: 'fresh', private: true }))
    try {
      npmInstall(fresh)
      const { status, stdout } = await npm(['config', 'get', ...keys], hostile, {}, fresh)
      expect(status, stdout).toBe(0)
      expect(stdout.trim().split('\n')).toEqual(needed)
    } finally {
      rmSync(fresh, { recursive: true, force: true })
    }
  })
})

// NODE_ENV=production reaches `npm test`'s scripts from the user's shell, and from npm itself when a
// user's config says omit=dev: npm sets it as it reads that level, before the project's include=dev
// (npm 11.19). React's test helpers exist only in its development build ("React.act is not a function").
it('runs the React tests as tests when NODE_ENV=production', async () => {
  const test = join('packages', 'ai-react', 'test', 'approvalFormBeforePause.test.tsx')
  const run = await execFileAsync(bin('vitest'), ['run', '--project', 'ai-react', test], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production', NO_COLOR: '1' },
  }).then(
    ({ stdout }) => ({ status: 0, stdout }),
    (error: { code: number; stdout: string; stderr: string }) => ({ status: error.code, stdout: `${error.stdout}\n${error.stderr}` }),
  )
  expect(run.status, run.stdout).toBe(0)
  expect(run.stdout).toMatch(/Tests +1 passed/)
})
