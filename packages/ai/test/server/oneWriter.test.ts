import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

// One writer for the thread: only the thread writer (server/thread/writer/) turns a change into a
// commit. The stores implement `commit`, the cache decorates a store's `commit` (thread/threadCache.ts)
// and the test kit drives stores directly; nothing else in server/ calls it. dependency-cruiser
// checks who imports the writer's commit module (.dependency-cruiser.cjs, `one-thread-writer`);
// this checks the calls, which it cannot see.

const server = fileURLToPath(new URL('../../src/server/', import.meta.url))
const ALLOWED = /^(thread\/writer\/|stores\/|testing\/|thread\/threadCache\.ts$)/

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )
}

it('only the thread writer calls a store’s `commit` in server/ (besides the stores, the cache’s decorator and the test kit)', () => {
  const callers = sources(server)
    .map((file) => relative(server, file).split('\\').join('/'))
    .filter((file) => !ALLOWED.test(file))
    .filter((file) => /\.commit\s*\(/.test(readFileSync(join(server, file), 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '')))
  expect(callers).toEqual([])
  // The writer itself is where the commits are made.
  expect(sources(join(server, 'thread/writer')).some((file) => /\.commit\s*\(/.test(readFileSync(file, 'utf8')))).toBe(true)
})
