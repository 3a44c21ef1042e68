/** The bundled edge entries (scripts/bundle.mjs) are what `glyphfold/render` and `glyphfold/serverless` export. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { render } from '../../src/render/index.js';

const root = join(import.meta.dirname, '..', '..');
const bundleDir = join(root, 'dist', 'bundle');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { default: string }>;
};

describe('bundled entries', () => {
  it('are what the package exports for render and serverless', () => {
    expect(pkg.exports['./render']!.default).toBe('./dist/bundle/render/index.js');
    expect(pkg.exports['./serverless']!.default).toBe('./dist/bundle/serverless/index.js');
  });

  it('render the same bytes as the source modules', async () => {
    const bundled = (await import(
      pathToFileURL(join(root, pkg.exports['./render']!.default)).href
    )) as typeof import('../../src/render/index.js');
    const text = 'bundled and unbundled agree ─ café 😀\n\tindented\n' + 'wrap '.repeat(200);
    for (const compression of ['default', 'fastest'] as const) {
      const options = { shape: { width: 400, height: 120 }, compression };
      const a = await bundled.render(text, options);
      const b = await render(text, options);
      expect(a.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
        b.pages.map((p) => Buffer.from(p.png).toString('base64')),
      );
    }
  });

  it('serve a request from the bundled serverless handler', async () => {
    const { handler } = (await import(
      pathToFileURL(join(root, pkg.exports['./serverless']!.default)).href
    )) as typeof import('../../src/serverless/index.js');
    const res = await handler(new Request('http://local/v1/health'));
    expect(res.status).toBe(200);
  });

  it('contain no Node-only import', () => {
    // dist/bundle/node/ is the root entry, built for Node on purpose (it re-exports the store).
    const files = readdirSync(bundleDir, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.js') && !f.startsWith('node/'),
    );
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const code = readFileSync(join(bundleDir, file), 'utf8');
      expect(code, file).not.toMatch(/(?:from\s*|import\s*\(\s*)["'](?:node:|fs["']|path["']|zlib["'])/);
    }
  });
});
