/**
 * The edge subpaths bundle for a browser or Worker (esbuild, platform 'browser', through the package's
 * own `exports`): a Node-only import anywhere in their graph fails the build. The optional SDKs stay
 * external (the summarizers import them on first use). The bundled views then build a body.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wireView } from '../../src/views/index.js';
import { agentRun } from '../views/fixtures.js';

const root = join(import.meta.dirname, '..', '..');
const EDGE_SUBPATHS = ['render', 'serverless', 'views', 'compaction', 'transcript', 'tokens'];

describe.each(EDGE_SUBPATHS)('glyphfold/%s', (sub) => {
  it('bundles for the browser platform with no Node-only module', async () => {
    const result = await build({
      stdin: { contents: `export * from 'glyphfold/${sub}';`, resolveDir: root, loader: 'js' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      external: ['@anthropic-ai/sdk', 'openai'],
      metafile: true,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.length).toBeGreaterThan(1);
    expect(inputs.filter((f) => f.startsWith('node:') || f.includes('better-sqlite3'))).toEqual([]);
    const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    expect(imports.filter((p) => !['@anthropic-ai/sdk', 'openai'].includes(p))).toEqual([]);
  });
});

describe('the check can fail', () => {
  it('the root entry (which holds the store) does not bundle for the browser', async () => {
    await expect(
      build({
        stdin: { contents: `export * from 'glyphfold';`, resolveDir: root, loader: 'js' },
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'browser',
        logLevel: 'silent',
      }),
    ).rejects.toThrow(/node:/);
  });
});

describe('the bundled views', () => {
  it('build the same body as the source', async () => {
    const bundled = (await import('glyphfold/views')) as typeof import('../../src/views/index.js');
    const path = agentRun('anthropic');
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const)
      expect(bundled.wireView(provider, path, { model: 'm' })).toEqual(
        wireView(provider, path, { model: 'm' }),
      );
  });
});
