import { defineConfig, defaultClientConditions } from 'vite'
import react from '@vitejs/plugin-react'

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // Workspace packages are consumed from source; no build step between them and the demo.
  resolve: { conditions: ['@toolgate/source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: true },
})
