import { defaultClientConditions, defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

// Workspace packages export their TypeScript sources under the `source` condition,
// so tests run against src/ without a build step.
const resolve = { conditions: ['source', ...defaultClientConditions] }
const ssr = { resolve: { conditions: ['source', ...defaultServerConditions], externalConditions: ['source'] } }

export default defineConfig({
  resolve,
  ssr,
  test: {
    projects: [
      {
        resolve,
        ssr,
        test: {
          name: 'ai',
          environment: 'node',
          include: ['packages/ai/test/**/*.test.ts'],
        },
      },
      {
        resolve,
        ssr,
        test: {
          name: 'ai-react',
          environment: 'happy-dom',
          include: ['packages/ai-react/test/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
})
