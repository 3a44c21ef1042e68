/**
 * Bundles the edge-facing entries (`glyphfold/render`, `glyphfold/serverless`) from dist/ into
 * dist/bundle/, one module per entry plus shared and lazily loaded chunks.
 *
 * Why: a cold start spends most of its import time in the module loader, one file at a time. Measured
 * side by side on this project's machine, importing the serverless entry took 35–38 ms from ~30 files and
 * 16–18 ms bundled; render's import went from ~16 to ~9 ms. Types still come from dist/<entry>/*.d.ts.
 */
import { build } from 'esbuild';

await build({
  entryPoints: { 'render/index': 'dist/render/index.js', 'serverless/index': 'dist/serverless/index.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true, // transcript importers and fflate stay separate chunks, loaded on first use
  format: 'esm',
  platform: 'neutral', // fails the build if a Node-only module sneaks into an edge entry
  target: 'es2022',
  logLevel: 'warning',
});
