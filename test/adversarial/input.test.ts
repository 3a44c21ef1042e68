/**
 * Hostile input to the decoder, the renderer and the importers: each is refused with an error that
 * names what was wrong and where, before it costs memory or a stack overflow.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { cellSize, decode, DEFAULT_MAX_PAGES, render } from '../../src/render/index.js';
import { inflateZlibPortable } from '../../src/render/inflate.js';
import { assemblePng } from '../../src/render/png.js';
import { importTranscript, MAX_IMPORT_DEPTH } from '../../src/transcript/import/index.js';
import { runCli } from '../helpers/cli.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gf-input-'));
  dirs.push(d);
  return d;
}

describe('decoder: the declared size bounds the work', () => {
  it('a PNG declaring 400x120 whose data inflates to 32 MiB stops at the 6,120 bytes it needs', () => {
    const bomb = assemblePng(400, 120, deflateSync(Buffer.alloc(32 << 20)));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(() => decode([bomb])).toThrow(/^page 1: image data: inflate: .*(exceed|larger|too large)/i);
  });

  it('the portable inflater (edge runtimes) stops at its cap too', () => {
    const stream = deflateSync(Buffer.alloc(8 << 20));
    expect(() => inflateZlibPortable(stream, 1000, 6120)).toThrow(/output exceeds the 6120 bytes expected/);
    expect(inflateZlibPortable(stream, 1000, 8 << 20).length).toBe(8 << 20);
  });

  it('a PNG declaring 100000x100000 is refused from its header, naming the page', () => {
    const huge = assemblePng(100_000, 100_000, deflateSync(Buffer.alloc(1024)));
    expect(() => decode([huge])).toThrow(/^page 1: IHDR declares 100000x100000 pixels/);
  });

  it('`glyphfold decode` names the file', async () => {
    const dir = tempDir();
    const file = join(dir, 'bomb.png');
    writeFileSync(file, assemblePng(400, 120, deflateSync(Buffer.alloc(1 << 20))));
    const r = await runCli(['decode', file]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${file}: image data: inflate:`);
  });
});

describe('render(): a page limit that says how to lift it', () => {
  const shape = { width: 64, height: 24 };
  it('defaults to 10,000 pages', () => {
    expect(DEFAULT_MAX_PAGES).toBe(10_000);
  });

  it('a text needing more pages than maxPages is refused before drawing the page past the limit', async () => {
    const drawn: number[] = [];
    await expect(
      render('line\n'.repeat(100), { shape, maxPages: 3, onPage: (_, i) => void drawn.push(i) }),
    ).rejects.toThrow(/more than 3 pages of 64x24; pass a larger maxPages \(or Infinity\)/);
    expect(drawn).toEqual([0, 1, 2]);
    const lifted = await render('line\n'.repeat(100), { shape, maxPages: Infinity });
    expect(lifted.pages.length).toBeGreaterThan(3);
    await expect(render('x', { shape, maxPages: 0 })).rejects.toThrow(/maxPages must be an integer ≥ 1/);
  });

  it('cell names from Object.prototype are unknown cells, not InvalidCharacterError', async () => {
    for (const cell of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(() => cellSize(cell as '4x6')).toThrow(RangeError);
      await expect(render('x', { shape, cell: cell as '4x6' })).rejects.toThrow(
        new RegExp(`unknown cell '${cell}': expected one of 4x6, 5x7, 5x8`),
      );
    }
  });
});

describe('importers', () => {
  const chat = [
    { role: 'user', content: 'hello' },
    { role: 'assistant', content: 'hi there' },
  ];

  it('a UTF-8 byte-order mark is ignored (JSON and JSONL)', () => {
    const json = '\ufeff' + JSON.stringify(chat);
    expect(importTranscript(json).items).toHaveLength(2);
    const jsonl = readFileSync('test/fixtures/transcripts/claude-code.jsonl', 'utf8');
    expect(importTranscript('\ufeff' + jsonl).items).toEqual(importTranscript(jsonl).items);
  });

  it('deep nesting is refused with its line and column, not a stack overflow', () => {
    const deep = '[{"role":"user","content":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}]';
    expect(() => importTranscript(deep)).toThrow(
      new RegExp(
        `JSON nested deeper than ${MAX_IMPORT_DEPTH} levels at line 1, column ${26 + MAX_IMPORT_DEPTH - 1}`,
      ),
    );
    // The same for JSON parsed elsewhere (the serverless handler passes parsed values).
    expect(() => importTranscript(JSON.parse(deep))).toThrow(
      /JSON nested deeper than 256 levels at \$\[0\]\.content/,
    );
    // Brackets inside strings are text, not nesting.
    const text = [
      { role: 'user', content: '['.repeat(10_000) },
      { role: 'assistant', content: 'ok' },
    ];
    expect(importTranscript(JSON.stringify(text)).items).toHaveLength(2);
  });

  it('input that yields no item is an error', () => {
    expect(() => importTranscript([{ role: 'user' }])).toThrow(/holds no items to import/);
  });

  it('`glyphfold import` of an empty result exits non-zero and creates no conversation', async () => {
    const dir = tempDir();
    const file = join(dir, 'empty.json');
    writeFileSync(file, '[{"role":"user"}]');
    const r = await runCli(['import', file, '--workspace', join(dir, 'ws')]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/holds no items to import/);
    expect(existsSync(join(dir, 'ws'))).toBe(false);
  });
});
