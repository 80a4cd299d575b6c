import { defineConfig } from 'vite';

// Preact's JSX through the transformer Vite already runs (Oxc): no framework plugin is needed for a production build.
export default defineConfig({
  base: '/admin/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    target: 'es2022',
    // The polyfill would be an inline script, which the console's CSP refuses; every supported browser has modulepreload.
    modulePreload: { polyfill: false },
    sourcemap: false,
    // dist/.vite/manifest.json: which chunks the page loads first (scripts/size.ts holds them to the budget).
    manifest: true,
  },
});
