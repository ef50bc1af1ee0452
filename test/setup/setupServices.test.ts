import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers.ts'

// `npm run setup:services` (and so .ci/run) on a machine whose npm prints only errors: a common
// .npmrc setting (`loglevel=error`), here through npm's environment variable.
describe('scripts/setup-services.sh', () => {
  it.each(['error', 'silent'])('passes its registry check with npm_config_loglevel=%s', (loglevel) => {
    const run = spawnSync('bash', ['scripts/setup-services.sh'], { cwd: repoRoot, env: { ...process.env, npm_config_loglevel: loglevel }, encoding: 'utf8' })
    expect(run.stderr).not.toContain('FAIL')
    expect(run.stdout).toMatch(/^ok {3}npm registry: /m)
    expect(run.status).toBe(0)
  })
})
