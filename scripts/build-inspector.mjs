/**
 * Bundles the inspector's page (src/inspector/ui, Preact) into dist/inspector/ui/app.js and app.css.
 * Run by `npm run build:ts` (so by `prepack`, and by `scripts/ensure-build.mjs` on a clone): the assets
 * ship inside the package and the page loads nothing from any other host.
 */
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';

const out = 'dist/inspector/ui';
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ['src/inspector/ui/main.tsx'],
  outfile: `${out}/app.js`,
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync('src/inspector/ui/app.css', `${out}/app.css`);
if (process.env.GLYPHFOLD_BUILD_VERBOSE)
  console.log(
    `inspector ui: app.js ${statSync(`${out}/app.js`).size} B, app.css ${statSync(`${out}/app.css`).size} B`,
  );
