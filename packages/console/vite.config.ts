import { defineConfig } from 'vite';

/**
 * The console is served by the gateway under /console (services/gateway/src/http/console.ts) and
 * calls the API on the same origin. Its CSP allows no inline script, style or data: URL, so
 * nothing is inlined; the build has no module-preload polyfill (an inline-free modern build).
 * `npm run dev` proxies the API to a local gateway (`npm run up`).
 */
export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/files': 'http://127.0.0.1:8080' },
  },
});
