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
    expect(out).toMatch(
      /claude-opus-4-7\s+Claude Opus 4.7\s+anthropic\s+1652×2268\s+-\s+4779\s+156114\s+32.7\s+8.2×\s+20/,
    );
    expect(out).toMatch(/gpt-4o\s+GPT-4o\s+openai\s+512×2048\s+high\s+765\s+43648\s+57.1\s+14.3×\s+1500/);
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
