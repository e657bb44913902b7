import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The dashboard's build: `dist/` is what Firebase Hosting and `npm start` serve. `npm run -w dashboard dev`
// proxies the service's paths to a running `npm start` on 8787.
const service = ['/v1', '/api/v1', '/mcp', '/files', '/p', '/oauth', '/__'];
export default defineConfig({
  plugins: [react()],
  // pdf.js's worker (the forms' review screen) is an ES module.
  worker: { format: 'es' },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022', reportCompressedSize: false },
  server: { proxy: Object.fromEntries(service.map((p) => [p, 'http://127.0.0.1:8787'])) },
});
