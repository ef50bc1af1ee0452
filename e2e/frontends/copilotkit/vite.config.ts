import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import { COPILOTKIT_PAGE_PORT, COPILOTKIT_RUNTIME_PORT } from './port.ts'

// A page built on CopilotKit v2 (tests/copilotkit.spec.ts), served beside the demo: the demo's
// server answers its AG-UI agent at /api/chat, proxied here so the page and the endpoint share an origin;
// `@copilotkit/runtime` (runtime.ts) answers at /api/copilotkit.
const demo = `http://127.0.0.1:${process.env.E2E_PORT ?? 4310}`

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // CopilotKit's chat UI (markdown, KaTeX, …) is one large bundle; this page is a test fixture, not shipped.
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 8000 },
  preview: { host: '127.0.0.1', port: COPILOTKIT_PAGE_PORT, strictPort: true, proxy: { '/api/copilotkit': `http://127.0.0.1:${COPILOTKIT_RUNTIME_PORT}`, '/api': demo } },
})
