import { parseVariant, variantCell } from '../../src/render/index.js';
import { builtInLegibility } from '../../src/providers/legibility.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE_MODELS } from '../../src/cli/shapes.js';
import { resetProfiles } from '../../src/providers/index.js';
import { runCli } from '../helpers/cli.js';

const run = (argv: string[], cwd = process.cwd()) => runCli(argv, { cwd });

afterEach(() => resetProfiles());

describe('glyphfold shapes', () => {
  it('prints a table of the main models of every provider', async () => {
    const { code, out } = await run(['shapes']);
    expect(code).toBe(0);
    for (const m of DEFAULT_SHAPE_MODELS) expect(out).toContain(m);
    // Default floor 1%: the cheapest variant measured within it for claude readers (the shipped table
    // has one, gf-6x10); other families get the most legible variant measured for any family, marked *.
    const table = builtInLegibility();
    const claude = table.variants.filter((e) => (e.cer['claude']?.cer ?? 1) <= 0.01).map((e) => e.variant);
    const opus =
      /claude-opus-4-7\s+Claude Opus 4.7\s+anthropic\s+\S+\s+-\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+×\s+\d+\s+(\S+)\s+(\d+\.\d)%\n/.exec(
        out,
      );
    expect(opus).not.toBeNull();
    expect(claude).toContain(opus![1]);
    const best = table.variants.reduce((a, b) =>
      (b.cer['claude']?.cer ?? 1) < (a.cer['claude']?.cer ?? 1) ? b : a,
    );
    expect(out).toMatch(
      new RegExp(
        `gpt-4o\\s+GPT-4o\\s+openai\\s+2048×512\\s+high\\s+765\\s+17391\\s+[\\d.]+\\s+[\\d.]+×\\s+1500\\s+${best.variant}\\s+[\\d.]+% \\(claude\\) \\*`,
      ),
    );
    expect(out).toMatch(/legibility \(floor 1\.0%\):\n {2}measured: bench\/legibility\/results: /);
    expect(out).toContain(
      `* no legibility measurement for gpt readers; using the most legible variant measured for any family: ${best.variant}`,
    );
    expect(out).toMatch(/o3-mini.*no vision/);
    expect(out).toMatch(/gemini-3-pro.*\(unverified\)/);
    expect(out).toContain('vs text (4 ch/tok)');
  });

  it('prints JSON for chosen models, cell, scale and image count', async () => {
    const { code, out } = await run([
      'shapes',
      '--model',
      'us.anthropic.claude-opus-4-7',
      '--model',
      'gpt-5.4',
      '--cell',
      '5x8',
      '--scale',
      '2',
      '--images',
      '30',
      '--text-chars-per-token',
      '3.5',
      '--json',
    ]);
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as {
      textCharsPerToken: number;
      rows: {
        model: string;
        route: string;
        shape: { width: number; height: number; cols: number; charsPerToken: number };
        compression: number;
      }[];
    };
    expect(parsed.textCharsPerToken).toBe(3.5);
    const [claude, gpt] = parsed.rows;
    expect(claude).toMatchObject({ model: 'us.anthropic.claude-opus-4-7', route: 'bedrock' });
    expect(Math.max(claude!.shape.width, claude!.shape.height)).toBeLessThanOrEqual(2000);
    expect(claude!.shape.cols).toBe(Math.floor(claude!.shape.width / 10));
    expect(gpt!.compression).toBeCloseTo(gpt!.shape.charsPerToken / 3.5, 10);
  });

  it('shows the 4x6 page and its error rate with --cell, and chooses under --max-cer', async () => {
    const dense = await run(['shapes', '--model', 'claude-opus-4-7', '--cell', '4x6']);
    const four = builtInLegibility().variants.find((e) => e.variant === '4x6')!.cer['claude']!.cer;
    expect(dense.out).toMatch(
      new RegExp(
        `claude-opus-4-7\\s+Claude Opus 4.7\\s+anthropic\\s+1652×2268\\s+-\\s+4779\\s+156114\\s+32.7\\s+8.2×\\s+20\\s+4x6\\s+${(four * 100).toFixed(1).replace('.', '\\.')}%\\n`,
      ),
    );
    const loose = await run(['shapes', '--model', 'claude-opus-4-7', '--max-cer', '0.05', '--json']);
    const row = (
      JSON.parse(loose.out) as { rows: { shape: { variant: string }; legibility: { cer: number } }[] }
    ).rows[0]!;
    // Admitted: every variant measured within 5% for claude; one with the smallest cell pitch carries
    // the most characters per token, and between equal pitches the more legible one wins.
    const admitted = builtInLegibility()
      .variants.filter((e) => (e.cer['claude']?.cer ?? 1) <= 0.05)
      .map((e) => ({
        variant: e.variant,
        cer: e.cer['claude']!.cer,
        ...variantCell(parseVariant(e.variant)),
      }));
    const area = Math.min(...admitted.map((a) => a.width * a.height));
    const smallest = admitted.filter((a) => a.width * a.height === area).sort((a, b) => a.cer - b.cer);
    expect(row.shape.variant).toBe(smallest[0]!.variant);
    expect(row.legibility.cer).toBe(smallest[0]!.cer);
    const dir = await mkdtemp(join(tmpdir(), 'glyphfold-shapes-'));
    try {
      await writeFile(
        join(dir, 'probe.json'),
        JSON.stringify({
          variants: [
            {
              variant: '4x6+r1',
              cer: {
                gpt: { cer: 0.009, chars: 2500, readers: 2, date: '2026-12-01', source: 'my gpt probe' },
              },
            },
          ],
        }),
      );
      const own = await run(['shapes', '--model', 'gpt-5.4', '--legibility', 'probe.json'], dir);
      expect(own.out).toMatch(/gpt-5.4 .*4x6\+r1\s+0\.9%\n/);
      expect(own.out).toContain('measured: my gpt probe');
      const bad = await run(['shapes', '--max-cer', 'x']);
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/--max-cer expects an error rate/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads a profile file that overrides a model', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'glyphfold-shapes-'));
    try {
      await writeFile(
        join(dir, 'mine.json'),
        JSON.stringify({ profiles: [{ family: 'acme-eye', extends: 'gemini-2-5-pro', name: 'Acme Eye' }] }),
      );
      const { code, out } = await run(['shapes', '--model', 'acme-eye-1', '--profiles', 'mine.json'], dir);
      expect(code).toBe(0);
      expect(out).toMatch(/acme-eye-1\s+Acme Eye\s+unknown\s+768×768/);
      await writeFile(
        join(dir, 'bad.json'),
        JSON.stringify({ profiles: [{ family: 'x', extends: 'gpt-4o', vision: 2 }] }),
      );
      const bad = await run(['shapes', '--profiles', 'bad.json'], dir);
      expect(bad.code).toBe(1);
      expect(bad.err).toMatch(/bad.json.profiles\[0\] 'x'.vision: expected true or false, found 2/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports usage errors with exit code 2', async () => {
    for (const args of [
      ['--cell', '3x3'],
      ['--scale', '0'],
      ['--route', 'mars'],
      ['--bogus'],
      ['--model', ''],
    ]) {
      const { code, err } = await run(['shapes', ...args]);
      expect(code, args.join(' ')).toBeGreaterThan(0);
      expect(err).toMatch(/glyphfold shapes: /);
    }
  });
});
