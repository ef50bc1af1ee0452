import { defineConfig } from 'vitest/config'

// Tests of what users get: the packed tarballs in fresh projects, the examples, the docs, the
// handler on every runtime. They use `dist/` (`npm run build` first), never the sources.
export default defineConfig({
  test: {
    name: 'integration',
    root: new URL('.', import.meta.url).pathname,
    include: ['**/*.test.ts'],
    environment: 'node',
    testTimeout: 240_000,
    hookTimeout: 240_000,
    // One at a time: each test installs, builds or starts runtimes, and the machine has two cores.
    fileParallelism: false,
  },
})
