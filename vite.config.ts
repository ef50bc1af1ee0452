import { fileURLToPath } from 'node:url'
import { defaultClientConditions, defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

// Workspace packages export their TypeScript sources under the `@toolgate/source` condition,
// so tests run against src/ without a build step.
const resolve = { conditions: ['@toolgate/source', ...defaultClientConditions] }
// Server code resolves packages as Node does: without Vite's `module` condition, under which
// `@opentelemetry/api` publishes extensionless ESM that Node cannot load once Vite hands it over.
const ssr = { resolve: { conditions: ['@toolgate/source', ...defaultServerConditions.filter((condition) => condition !== 'module')] } }

export default defineConfig({
  resolve,
  ssr,
  test: {
    // React's test helpers (`act`) exist only in its development build, which NODE_ENV=production
    // (a common shell or CI setting) would swap out: the tests run as tests whatever the shell says.
    env: { NODE_ENV: 'test' },
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
      // The demo's server process, started as a user starts it (apps/demo/test).
      { resolve, ssr, test: { name: 'demo', environment: 'node', include: ['apps/demo/test/**/*.test.ts'] } },
      {
        resolve: {
          ...resolve,
          // These tests run the real chat server in-process, in a browser-like environment: give it
          // the server build of JSON Schema emission, which browser builds leave out.
          alias: { '#emit-json-schema': fileURLToPath(new URL('packages/ai/src/schema/emitJsonSchema.ts', import.meta.url)) },
        },
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
