// Builds the portal into dist/portal; the server serves it under /portal/ (relative asset paths).
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  build: { outDir: fileURLToPath(new URL('../dist/portal', import.meta.url)), emptyOutDir: true, chunkSizeWarningLimit: 800 },
  server: { proxy: { '/api': process.env['CONVEYOR_URL'] ?? 'http://127.0.0.1:52773' } },
});
