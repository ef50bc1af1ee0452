import { defineConfig, devices } from '@playwright/test'
import { AIMOCK_PORT, PROVIDER_DEMOS } from './providers/demos.ts'
import { REDIS_PORT, SHARED_DEMOS } from './instances.ts'
import { AI_SDK_PAGE_PORT } from './frontends/ai-sdk/port.ts'
import { COPILOTKIT_PAGE_PORT, COPILOTKIT_RUNTIME_PORT } from './frontends/copilotkit/port.ts'
import { TANSTACK_PAGE_PORT } from './frontends/tanstack/port.ts'
import { MCP_APP_PAGE_PORT } from './frontends/mcp-app/port.ts'
import { chromium } from './chromium.ts'

const port = Number(process.env.E2E_PORT ?? 4310)
const baseURL = `http://127.0.0.1:${port}`

export default defineConfig({
  testDir: './tests',
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  // A flaky test must fail, not turn green on a second try.
  retries: 0,
  // The README's screenshots are assets, not a test: `npm run screenshots` takes them.
  testIgnore: process.env.UPDATE_SCREENSHOTS === '1' ? [] : ['**/screenshots.spec.ts'],
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL,
    trace: 'retain-on-failure',
    launchOptions: chromium,
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions: chromium } }],
  webServer: [
    {
      command: 'npm run demo',
      cwd: '..',
      url: `${baseURL}/api/tools`,
      // Short streaming pauses keep the suite quick while runs still stream visibly.
      env: { PORT: String(port), TOOLGATE_DEMO_DELAY_MS: '8', TOOLGATE_DEMO_TEST_HOOKS: '1' },
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
      stdout: 'pipe',
    },
    // The provider runs (tests/providers.spec.ts): aimock speaking each provider's wire format, and
    // the demo's server once per adapter, serving the app the first server built.
    { command: 'tsx providers/aimock.ts', url: `http://127.0.0.1:${AIMOCK_PORT}/health`, reuseExistingServer: !process.env.CI, timeout: 30_000 },
    ...PROVIDER_DEMOS.map((demo) => ({
      command: 'tsx --conditions=@toolgate/source server/main.ts',
      cwd: '../apps/demo',
      url: `http://127.0.0.1:${demo.port}/api/tools`,
      env: { PORT: String(demo.port), TOOLGATE_DEMO_TEST_HOOKS: '1', ...demo.env },
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
    })),
    // Pages on other frontends' own packages, against the demo's server: the AI SDK's useChat
    // (tests/aiSdk.spec.ts), CopilotKit v2 (tests/copilotkit.spec.ts), TanStack AI's useChat (tests/tanstack.spec.ts),
    // and the MCP Apps guide's page on Toolgate's own (tests/mcpApps.spec.ts).
    ...[
      { dir: 'ai-sdk', port: AI_SDK_PAGE_PORT },
      { dir: 'copilotkit', port: COPILOTKIT_PAGE_PORT },
      { dir: 'tanstack', port: TANSTACK_PAGE_PORT },
      { dir: 'mcp-app', port: MCP_APP_PAGE_PORT },
    ].map(({ dir, port: pagePort }) => ({
      command: `npx vite build --config frontends/${dir}/vite.config.ts --logLevel warn && npx vite preview --config frontends/${dir}/vite.config.ts`,
      url: `http://127.0.0.1:${pagePort}/`,
      env: { E2E_PORT: String(port) },
      reuseExistingServer: !process.env.CI,
      timeout: 120_000,
    })),
    // `@copilotkit/runtime` 1.75 in front of the demo's endpoint, for the CopilotKit page's `?runtime=1` (tests/copilotkit.spec.ts).
    {
      command: 'tsx frontends/copilotkit/runtime.ts',
      url: `http://127.0.0.1:${COPILOTKIT_RUNTIME_PORT}/api/copilotkit/info`,
      env: { E2E_PORT: String(port), COPILOTKIT_TELEMETRY_DISABLED: 'true' },
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
    },
    // Two instances on one Redis (tests/instances.spec.ts): Debian's redis-server, in memory only.
    { command: `redis-server --port ${REDIS_PORT} --bind 127.0.0.1 --save "" --appendonly no`, port: REDIS_PORT, reuseExistingServer: !process.env.CI, timeout: 30_000 },
    ...SHARED_DEMOS.map((demo) => ({
      command: 'tsx --conditions=@toolgate/source server/main.ts',
      cwd: '../apps/demo',
      url: `${demo.url}/api/tools`,
      env: demo.env,
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
    })),
  ],
})
