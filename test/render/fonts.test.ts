/** The font table (fonts/fonts.json), its provenance, the tuned glyph sets, and every font end to end. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildAtlas, decodeAtlas, glyphOf } from '../../src/render/atlas.js';
import { atlasFor } from '../../src/render/atlases.js';
import { CELL_NAMES, CELLS } from '../../src/render/cells.js';
import { decode, normalize, render } from '../../src/render/index.js';
import { applyTuned, parseTuned } from '../../src/render/tuned.js';
import {
  buildEntryAtlas,
  checkTunedAtlas,
  fontsDir,
  loadFont,
  loadFontTable,
  type FontEntry,
} from '../../scripts/lib/fonts.js';

const table = loadFontTable();
const entry = (name: string) => table.find((f) => f.name === name)!;
const readme = readFileSync(`${fontsDir}README.md`, 'utf8');

/** The atlas rows of the glyph drawing `cp` (pixels in the high bits of each byte). */
function atlasRows(name: string, cp: number): number[] {
  const atlas = atlasFor(name as never);
  const g = glyphOf(atlas, cp);
  expect(g, `${name} draws U+${cp.toString(16)}`).toBeGreaterThanOrEqual(0);
  return [...atlas.glyphs.subarray(g * atlas.cellHeight, (g + 1) * atlas.cellHeight)];
}
const artRows = (art: string[], width: number) =>
  art.map((row) => ([...row].reduce((b, c) => (b << 1) | (c === '#' ? 1 : 0), 0) << (8 - width)) & 0xff);

describe('font table', () => {
  it('is what the renderer knows: same names, same cell sizes, ≤ 8 px wide', () => {
    expect(CELL_NAMES).toEqual(table.map((f) => f.name));
    for (const f of table) {
      expect(CELLS[f.name as keyof typeof CELLS]).toEqual({ width: f.width, height: f.height });
      expect(f.width).toBeLessThanOrEqual(8);
    }
    expect(CELL_NAMES).toEqual(
      expect.arrayContaining(['5x7', '6x9', '6x12', '6x13', 'spleen-5x8', 'spleen-6x12', 'terminus-6x12']),
    );
    expect(CELL_NAMES).toEqual(expect.arrayContaining(['gf-5x8', 'gf-6x10']));
  });

  it('records provenance: source package and sha256, a licence file, a README row per font', () => {
    for (const f of table) {
      expect(existsSync(`${fontsDir}${f.licenceFile}`), f.licenceFile).toBe(true);
      expect(readme, `fonts/README.md mentions ${f.name}`).toContain(`\`${f.name}\``);
      if (f.file !== undefined) {
        expect(f.source?.package, f.name).toMatch(/^[a-z0-9.+-]+$/);
        expect(f.sourceSha256, f.name).toMatch(/^[0-9a-f]{64}$/);
        expect(readme, `fonts/README.md gives the source sha256 of ${f.name}`).toContain(f.sourceSha256!);
      }
    }
  });

  it('rejects a BDF whose sha256 does not match the table', () => {
    const bad: FontEntry = { ...entry('6x10'), bdfSha256: '0'.repeat(64) };
    expect(() => loadFont(bad, table)).toThrow(
      /fonts\/6x10\.bdf: sha256 is [0-9a-f]{64}, fonts\/fonts\.json says 0{64}/,
    );
  });
});

describe('every font of the table', () => {
  // ASCII, Latin-1, box drawing, and an emoji (drawn as an escape); digits and hex first, as they fail first.
  const mixed =
    '2026-11-30T10:49:52.083Z 0x7f3a9c08 de:ad:be:ef:01:9b v1.10.8-rc1\n' +
    'The quick brown fox; (x|y) {a[0]} ~`!@#$%^&*_+=\\"\'<>?/\n' +
    'café ñ ü ß æ ø ½ © ° ± × ÷ ¿ « »\n' +
    '┌──┬──┐\n│ab│cd│\n└──┴──┘ ░▒▓█\n' +
    'emoji 😀 done\ttab';

  for (const name of CELL_NAMES) {
    it(`${name}: builds from fonts/ and round-trips render → decode on both engines`, async () => {
      const f = entry(name);
      expect(buildEntryAtlas(f, table)).toEqual(atlasFor(name).bytes);
      const shape = { width: 37 * f.width + 3, height: 9 * f.height + 1 };
      const pngs: Record<string, Uint8Array[]> = {};
      for (const engine of ['wasm', 'ts'] as const) {
        const result = await render(mixed, { shape, cell: name, engine });
        expect(
          decode(
            result.pages.map((p) => p.png),
            { cell: name },
          ),
        ).toBe(normalize(mixed));
        const stored = await render(mixed, { shape, cell: name, engine, compression: 'fastest' });
        pngs[engine] = stored.pages.map((p) => p.png);
      }
      // Both engines draw the same bytes (stored blocks hold the scanlines verbatim).
      expect(pngs.wasm!.map((p) => Buffer.from(p).toString('base64'))).toEqual(
        pngs.ts!.map((p) => Buffer.from(p).toString('base64')),
      );
    });

    it(`${name}: round-trips as a spaced, flowed, scaled variant, engines byte-identical`, async () => {
      const f = entry(name);
      const variant = `${name}+c${Math.min(2, 8 - f.width)}+r1+s2+flow`;
      const shape = { width: 29 * 8 * 2 + 5, height: 6 * (f.height + 1) * 2 + 3 };
      const b64: string[][] = [];
      for (const engine of ['wasm', 'ts'] as const) {
        const result = await render(mixed, { shape, variant, engine });
        expect(
          decode(
            result.pages.map((p) => p.png),
            { variant },
          ),
          `${variant} on ${engine}`,
        ).toBe(normalize(mixed));
        // Stored blocks carry the scanlines verbatim: the engines draw the same pixels. ('default'
        // differs by design: the core's own deflate vs zlib on the TS engine, docs/renderer.md §5.)
        const stored = await render(mixed, { shape, variant, engine, compression: 'fastest' });
        b64.push(stored.pages.map((p) => Buffer.from(p.png).toString('base64')));
      }
      expect(b64[0]).toEqual(b64[1]);
    });
  }
});

describe('tuned glyph sets', () => {
  it("apply their overrides: gf-6x10 '0' differs from 6x10's and equals the art in the file", () => {
    const text = readFileSync(`${fontsDir}tuned/gf-6x10.txt`, 'utf8');
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('U+0030'));
    const art = lines.slice(at + 1, at + 11);
    expect(art.every((r) => /^[.#]{6}$/.test(r))).toBe(true);
    expect(atlasRows('gf-6x10', 0x30)).toEqual(artRows(art, 6));
    expect(atlasRows('gf-6x10', 0x30)).not.toEqual(atlasRows('6x10', 0x30));
    // Glyphs without an override are the base font's.
    for (const c of 'AaZz#@')
      expect(atlasRows('gf-6x10', c.codePointAt(0)!)).toEqual(atlasRows('6x10', c.codePointAt(0)!));
  });

  it('keep every overridden glyph drawable, and the confusion groups pairwise distinct', () => {
    for (const name of ['gf-5x8', 'gf-6x10']) {
      const f = entry(name);
      const tuned = parseTuned(readFileSync(`${fontsDir}${f.tuned!}`, 'utf8'), f.width, f.height, f.tuned!);
      expect(tuned.overrides.size).toBeGreaterThan(5);
      for (const [cp, rows] of tuned.overrides) {
        expect(atlasRows(name, cp)).toEqual(rows.map((r) => (r << (8 - f.width)) & 0xff));
      }
      for (const group of ['0O8BD', '3B8', '17Il|', 'b6d', '69gq', 'ec', '5S', ':;', '.,']) {
        const bitmaps = [...group].map((c) => atlasRows(name, c.codePointAt(0)!).join());
        expect(new Set(bitmaps).size, `${name} '${group}'`).toBe(group.length);
      }
    }
  });

  it('reject an override equal to another glyph, naming both', () => {
    const base = loadFont(entry('6x10'), table);
    const oArt = atlasRows('6x10', 0x4f).map((r) => (r >> 2).toString(2).padStart(6, '0'));
    const text = `base 6x10\nU+0030 0\n${oArt.map((r) => r.replace(/0/g, '.').replace(/1/g, '#')).join('\n')}\n`;
    const tuned = parseTuned(text, 6, 10, 'bad.txt');
    expect(() => applyTuned(base, tuned, 'bad.txt')).toThrow(
      /bad\.txt: override U\+0030 '0' is identical to U\+004F 'O'/,
    );
  });

  it('reject an override equal to a reserved glyph when the atlas is built', () => {
    // Inverted '1' is reserved glyph 3 (escape digits); as an override of '0' it would be escaped.
    const one = atlasRows('6x10', 0x31).map((r) => ((~r >> 2) & 0x3f).toString(2).padStart(6, '0'));
    const art = one.map((r) => r.replace(/0/g, '.').replace(/1/g, '#'));
    const tuned = parseTuned(`base 6x10\nU+0030\n${art.join('\n')}\n`, 6, 10, 't.txt');
    const bytes = buildAtlas(applyTuned(loadFont(entry('6x10'), table), tuned, 't.txt'), entry('6x10').mark);
    expect(glyphOf(decodeAtlas(bytes), 0x30)).toBe(-1); // silently escaped by the atlas builder…
    expect(() => checkTunedAtlas(bytes, tuned.overrides, 't.txt')).toThrow(
      /t\.txt: override U\+0030 did not reach the atlas: it equals a reserved glyph/,
    ); // …so the build stops with this error
    for (const name of ['gf-5x8', 'gf-6x10']) expect(() => buildEntryAtlas(entry(name), table)).not.toThrow();
  });

  it('name the file, line and flaw of a malformed set', () => {
    expect(() => parseTuned('base 6x10\nU+0030\n......\n..#..\n', 6, 10, 'x.txt')).toThrow(
      /x\.txt:4: U\+0030 row 2 of 10: expected 6 of '\.'\/'#', found '\.\.#\.\.'/,
    );
    expect(() => parseTuned('U+0030\n', 6, 1, 'x.txt')).toThrow(/x\.txt:2: U\+0030 row 1 of 1/);
    expect(() => parseTuned('zero\n', 6, 10, 'x.txt')).toThrow(
      /x\.txt:1: expected 'base NAME' or a glyph header/,
    );
    expect(() => parseTuned('', 6, 10, 'x.txt')).toThrow(/x\.txt: no 'base NAME' line/);
  });
});
