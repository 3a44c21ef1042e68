/**
 * Bundles the entries from dist/ into dist/bundle/, one module per entry plus shared and lazily loaded
 * chunks.
 *
 * Why: a cold start spends most of its import time in the module loader, one file at a time. Measured
 * side by side on this project's machine, importing the serverless entry took 35–38 ms from ~30 files and
 * 16–18 ms bundled; render's import went from ~16 to ~9 ms. Types still come from dist/<entry>/*.d.ts.
 *
 * Two builds: the edge entries are platform-neutral, so a Node-only import fails the build (that is
 * the check that they run on Workers, Deno, Bun and in browsers); the root entry is built for Node
 * (it re-exports the store) with every package left external, so the optional SDKs and better-sqlite3
 * load only when used.
 */
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

/** The SDKs are optional peers, imported on first use by the summarizers; never bundled. */
const OPTIONAL_PEERS = ['@anthropic-ai/sdk', 'openai'];

export const EDGE_ENTRIES = {
  'render/index': 'dist/render/index.js',
  'serverless/index': 'dist/serverless/index.js',
  'views/index': 'dist/views/index.js',
  'compaction/index': 'dist/compaction/index.js',
  'transcript/portable': 'dist/transcript/portable.js',
  'tokens/index': 'dist/tokens/index.js',
};

// Chunk names carry content hashes: an old build's chunks would otherwise ship beside the new ones.
rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: EDGE_ENTRIES,
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true, // transcript importers and fflate stay separate chunks, loaded on first use
  format: 'esm',
  platform: 'neutral', // fails the build if a Node-only module sneaks into an edge entry
  target: 'es2022',
  external: OPTIONAL_PEERS,
  logLevel: 'warning',
});

await build({
  entryPoints: { index: 'dist/index.js' },
  outdir: 'dist/bundle/node',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'es2022',
  packages: 'external',
  logLevel: 'warning',
});
