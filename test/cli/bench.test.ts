import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { benchShapes, type ShapeBenchRow } from '../../src/cli/bench.js';
import { main } from '../../src/cli/main.js';
import { englishProse } from '../../src/cli/prose.js';
import { bestPageShape, resolveProfile } from '../../src/providers/index.js';
import { countPages } from '../../src/render/index.js';

async function run(argv: string[], isTTY = false) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await main(argv, { stdout, stderr, stdin: Readable.from([]), isTTY, cwd: process.cwd() });
  return { code, out, err };
}

describe('benchShapes', () => {
  it('measures each model’s best page shape once, models sharing a shape in one row', async () => {
    const models = ['claude-sonnet-4-6', 'claude-haiku-4-5', 'gpt-4o', 'o3-mini'];
    const { rows, skipped } = await benchShapes({ models, chars: 40_000, timeMs: 5 });
    expect(skipped).toEqual(['o3-mini']); // no vision
    const expected = new Map<string, string[]>();
    for (const m of models.slice(0, 3)) {
      const s = bestPageShape(resolveProfile(m).profile);
      const key = `${s.width}x${s.height}`;
      expected.set(key, [...(expected.get(key) ?? []), m]);
    }
    expect(rows.map((r) => [`${r.width}x${r.height}`, r.models])).toEqual([...expected]);
    const text = englishProse(40_000);
    for (const r of rows) {
      const counted = countPages(text, { shape: { width: r.width, height: r.height } });
      expect(r.pages).toBe(counted.pages);
      expect(r.charsPerPage).toBe(Math.round(counted.chars / counted.pages));
      for (const k of [
        'drawMcharsPerSec',
        'drawMsPerPage',
        'pngMcharsPerSec',
        'pngMsPerPage',
        'kibPerPage',
      ] as const) {
        expect(Number.isFinite(r[k]) && r[k] > 0, `${k} of ${r.width}x${r.height}`).toBe(true);
      }
    }
  });
});

describe('glyphfold bench', () => {
  it('--shapes --json prints one object with a row per shape', async () => {
    const r = await run(['bench', '--shapes', '--model', 'gpt-4o', '--compression', 'fastest', '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { compression: string; rows: ShapeBenchRow[]; skipped: string[] };
    expect(out.compression).toBe('fastest');
    expect(out.rows.map((x) => [x.width, x.height, x.models])).toEqual([[512, 2048, ['gpt-4o']]]);
    // stored blocks hold every scanline byte: 2048 rows × (1 + 512 / 8) bytes = 130 KiB, plus headers
    expect(out.rows[0]!.kibPerPage).toBeGreaterThan(130);
  });

  it('prints a table, progress on a terminal, and usage errors', async () => {
    const r = await run(['bench', '--shapes', '--model', 'gemini-2.5-pro', '--model', 'o3-mini'], true);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^page W×H +cols×rows/);
    expect(r.out).toMatch(/768×768 +192×128 +258 /);
    expect(r.out).toMatch(/Skipped \(no vision\): o3-mini\./);
    expect(r.err).toMatch(/bench 1\/1: 768x768/);
    expect((await run(['bench'])).err).toMatch(/nothing to measure: pass --shapes/);
    expect((await run(['bench', '--shapes', '--cell', '3x3'])).err).toMatch(/--cell must be one of/);
    expect((await run(['bench', '--shapes', '--scale', '9'])).err).toMatch(
      /--scale must be an integer 1-4, found '9'/,
    );
    expect((await run(['bench', '--shapes', '--compression', 'max'])).code).toBe(2);
    const none = await run(['bench', '--shapes', '--model', 'o3-mini']);
    expect([none.code, none.err]).toEqual([
      1,
      'glyphfold bench: no model with vision among those named: nothing to render\n',
    ]);
  });
});
