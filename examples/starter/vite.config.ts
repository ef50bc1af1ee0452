import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The page and the API share one origin in development: Vite serves the page and forwards /api to
// the Node server (server.ts), so the browser never makes a cross-origin request.
export default defineConfig({
  plugins: [react()],
  server: {
    port: Number(process.env.WEB_PORT ?? 5173),
    strictPort: true,
    proxy: { '/api': `http://127.0.0.1:${process.env.PORT ?? 3000}` },
  },
})
