import { describe, expect, it } from 'vitest'
import { countExports } from '../../../scripts/count-exports.ts'

// The public API stays small (issue 37: at most 320 names over all entry points, one home for
// each, no deprecated name kept in a 0.x package). `npx tsx scripts/count-exports.ts` prints it.
describe('the public surface', () => {
  // The checker reads every entry's sources: one program, built once.
  const surface = countExports()

  it('is at most 320 exported names over all entry points', () => {
    expect(surface.entries.map(({ entry }) => entry)).toContain('@toolgate/ai/client')
    expect(surface.total).toBeLessThanOrEqual(320)
  })

  it('keeps no deprecated name', () => {
    expect(surface.entries.filter(({ deprecated }) => deprecated.length > 0)).toEqual([])
  })

  it('gives each name one home', () => {
    expect([...surface.shared.keys()]).toEqual([])
  })
})
