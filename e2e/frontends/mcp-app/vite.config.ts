import { defineConfig, defaultClientConditions } from 'vite'
import react from '@vitejs/plugin-react'
import { MCP_APP_PAGE_PORT } from './port.ts'

// The guide's page (docs/mcp-apps.md), served beside the demo (tests/mcpApps.spec.ts): the demo's
// server answers /api/chat, proxied here so the page and the endpoint share an origin, and serves
// the sandbox proxy from its own origin, another one than this page's.
const demo = `http://127.0.0.1:${process.env.E2E_PORT ?? 4310}`

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // Toolgate's packages from their sources, as the demo takes them.
  resolve: { conditions: ['@toolgate/source', ...defaultClientConditions] },
  define: { 'import.meta.env.VITE_MCP_APP_SANDBOX': JSON.stringify(`${demo}/mcp-app-sandbox.html`) },
  build: { outDir: 'dist', emptyOutDir: true },
  preview: { host: '127.0.0.1', port: MCP_APP_PAGE_PORT, strictPort: true, proxy: { '/api': demo } },
})
