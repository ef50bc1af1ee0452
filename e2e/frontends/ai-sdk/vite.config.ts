import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import { AI_SDK_PAGE_PORT } from './port.ts'

// A page built on the AI SDK's own `useChat` (tests/aiSdk.spec.ts), served beside the demo: the
// demo's server answers it at /api/chat, proxied here so the page and the endpoint share an origin.
const demo = `http://127.0.0.1:${process.env.E2E_PORT ?? 4310}`

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, rollupOptions: { input: { v6: `${import.meta.dirname}/index.html`, v7: `${import.meta.dirname}/v7.html` } } },
  preview: { host: '127.0.0.1', port: AI_SDK_PAGE_PORT, strictPort: true, proxy: { '/api': demo } },
})
