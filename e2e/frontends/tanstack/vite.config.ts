import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import { TANSTACK_PAGE_PORT } from './port.ts'

// A page built on TanStack AI's own `useChat` (tests/tanstack.spec.ts), served beside the demo:
// the demo's server answers it at /api/chat?client=tanstack, proxied here so the page and the endpoint share an origin.
const demo = `http://127.0.0.1:${process.env.E2E_PORT ?? 4310}`

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
  preview: { host: '127.0.0.1', port: TANSTACK_PAGE_PORT, strictPort: true, proxy: { '/api': demo } },
})
