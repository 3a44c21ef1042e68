/**
 * Page variants (docs/renderer.md §2, §4): spacing and the flow layout, drawn identically by the WASM
 * core and the TS reference, and decoded losslessly.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { atlasFor } from '../../src/render/atlases.js';
import { GLYPH_NEWLINE, GLYPH_SPACE, NEWLINE_MARK_CODE_POINT } from '../../src/render/atlas.js';
import { decode } from '../../src/render/decode.js';
import {
  countPages,
  layoutRows,
  normalize,
  parseVariant,
  render,
  variantCell,
  variantId,
} from '../../src/render/index.js';
import { renderScanlines } from '../../src/render/reference.js';
import { loadWasmCore, type WasmCore } from '../../src/render/wasm.js';

const VARIANTS = [
  '4x6+flow',
  '5x8+c1+r1',
  '5x8+r1+flow',
  '6x10+c1',
  '6x10+r1+flow',
  '4x6+c2+r3+s2',
  '6x10+c2+flow',
  '4x6+r1+s3+flow',
  '5x8+s2',
];

const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 14 }) },
  { weight: 3, arbitrary: fc.constantFrom('\n', '\r\n', '\t', ' ', '   ', '\n\n', ' \n', '¶', '\r') },
  { weight: 1, arbitrary: fc.constantFrom('\uD800', '😀', '\u0000', 'А', 'é', '─┼', '\u0085') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 5 }) },
);
const textArb = fc.array(piece, { maxLength: 50 }).map((parts) => parts.join(''));

let core: WasmCore;
beforeAll(async () => {
  core = await loadWasmCore();
});

describe('variant ids', () => {
  it('parse and print canonically', () => {
    expect(parseVariant('6x10+flow+r1')).toEqual({
      cell: '6x10',
      scale: 1,
      spacing: { x: 0, y: 1 },
      layout: 'flow',
    });
    expect(variantId(parseVariant('6x10+flow+r1+c0'))).toBe('6x10+r1+flow');
    expect(variantId({ cell: '4x6', scale: 2 })).toBe('4x6+s2');
    expect(variantId(parseVariant('5x8+lines'))).toBe('5x8');
    expect(variantCell(parseVariant('5x8+c1+r1+s2'))).toEqual({ width: 12, height: 18 });
  });

  it('name what is wrong', () => {
    expect(() => parseVariant('7x7')).toThrow(/unknown cell '7x7'/);
    expect(() => parseVariant('6x10+q1')).toThrow(/variant '6x10\+q1': unknown modifier 'q1'/);
    expect(() => parseVariant('6x10+r1+r2')).toThrow(/modifier 'r' given twice/);
    expect(() => parseVariant('6x10+c3')).toThrow(/spacing.x must be an integer from 0 to 2, found 3/);
    expect(() => parseVariant('6x10+s5')).toThrow(/scale must be an integer from 1 to 4, found 5/);
    expect(() => parseVariant('')).toThrow(/expected an id/);
    expect(() => parseVariant('__proto__')).toThrow(/unknown cell '__proto__'/);
  });
});

describe('spacing', () => {
  it('adds blank columns and rows to every glyph, ink to escape glyphs', () => {
    const plain = atlasFor('4x6');
    const spaced = atlasFor('4x6', { x: 1, y: 2 });
    expect([spaced.cellWidth, spaced.cellHeight, spaced.glyphCount]).toEqual([5, 8, plain.glyphCount]);
    const a = plain.bmp['a'.charCodeAt(0)]!;
    expect([...spaced.glyphs.subarray(a * 8, a * 8 + 8)]).toEqual([
      ...plain.glyphs.subarray(a * 6, a * 6 + 6),
      0,
      0,
    ]);
    // glyph 2 is the inverted '0' of escapes: its new column and rows are ink
    expect(spaced.glyphs[2 * 8]! & 0x08).toBe(0x08);
    expect(spaced.glyphs[2 * 8 + 7]).toBe(0xf8);
  });

  it('draws the page with the spaced pitch', async () => {
    const { pages } = await render('ab\ncd', { shape: { width: 40, height: 40 }, variant: '4x6+c1+r2' });
    expect(decode([pages[0]!.png], { variant: '4x6+c1+r2' })).toBe('ab\ncd');
    expect(() => decode([pages[0]!.png], { variant: '4x6' })).toThrow(/matches no 4x6 glyph/);
  });
});

describe('flow layout', () => {
  it('fills rows completely and marks line breaks with the font pilcrow', () => {
    const atlas = atlasFor('6x10');
    // The mark is the font's pilcrow inverted; a real ¶ in text keeps its own (plain) glyph.
    const pilcrow = atlas.bmp[NEWLINE_MARK_CODE_POINT]!;
    expect(pilcrow).toBeGreaterThan(0);
    for (let r = 0; r < 10; r++) {
      expect(atlas.glyphs[GLYPH_NEWLINE * 10 + r]).toBe(~atlas.glyphs[pilcrow * 10 + r]! & 0xfc);
    }
    // 'ab', '', 'cdefgh' on 4 columns: ab¶¶ / cdef / gh
    expect(layoutRows('ab\n\ncdefgh', { cols: 4, cell: '6x10', layout: 'flow' })).toBe(3);
    expect(layoutRows('ab\n\ncdefgh', { cols: 4, cell: '6x10' })).toBe(4); // ab / (empty) / cde» / fgh
    const cells: number[][] = [];
    const [page] = renderScanlines('ab\n\ncdefgh', {
      shape: { width: 24, height: 40 },
      variant: '6x10+flow',
    });
    expect(page!.chars).toBe(10);
    // The third cell of the first row is the newline mark's bitmap.
    const rowBits = (x: number, y: number) =>
      (page!.scanlines[y * page!.stride + 1 + (x >> 3)]! >> (7 - (x & 7))) & 1;
    for (let r = 0; r < 10; r++) {
      let v = 0;
      for (let b = 0; b < 6; b++) v = (v << 1) | (1 - rowBits(12 + b, r));
      cells.push([v << 2]);
    }
    expect(cells.map((c) => c[0])).toEqual([
      ...atlas.glyphs.subarray(GLYPH_NEWLINE * 10, GLYPH_NEWLINE * 10 + 10),
    ]);
  });

  it('keeps inner spaces at the end of a full row and trims only the text end', async () => {
    const text = 'abc d\nef  gh';
    const { pages } = await render(text, { shape: { width: 16, height: 60 }, variant: '4x6+flow' });
    expect(
      decode(
        pages.map((p) => p.png),
        { variant: '4x6+flow' },
      ),
    ).toBe(text);
    expect(() =>
      decode(
        pages.map((p) => p.png),
        { variant: '4x6' },
      ),
    ).toThrow(/(space|newline) mark in a lines page/);
  });
});

describe('both engines agree and decoding is lossless for every variant', () => {
  for (const id of VARIANTS) {
    it(id, async () => {
      const v = parseVariant(id);
      const cell = variantCell(v);
      await fc.assert(
        fc.asyncProperty(
          textArb,
          fc.integer({ min: 2, max: 30 }),
          fc.integer({ min: 2, max: 9 }),
          async (text, cols, rows) => {
            const shape = { width: cols * cell.width + (cols % 3), height: rows * cell.height + (rows % 2) };
            const wasm = await render(text, { shape, variant: id, engine: 'wasm', compression: 'fastest' });
            const ts = await render(text, { shape, variant: id, engine: 'ts', compression: 'fastest' });
            expect(wasm.pages.map((p) => Buffer.from(p.png).toString('hex'))).toEqual(
              ts.pages.map((p) => Buffer.from(p.png).toString('hex')),
            );
            expect(wasm.pages.map((p) => p.chars)).toEqual(ts.pages.map((p) => p.chars));
            expect(wasm.escapes).toBe(ts.escapes);
            const normalized = normalize(text);
            expect(
              decode(
                ts.pages.map((p) => p.png),
                { variant: id },
              ),
            ).toBe(normalized);
            expect(ts.chars).toBe([...normalized].length);
            expect(countPages(text, { shape, variant: id }).pages).toBe(ts.pages.length);
            expect(core.count(text, { ...shape, ...v }).pages).toBe(ts.pages.length);
            const total = layoutRows(text, { cols, cell: v.cell, layout: v.layout });
            expect(Math.ceil(total / rows)).toBe(ts.pages.length);
          },
        ),
        { seed: 20261130, numRuns: 120 },
      );
    });
  }
});

describe('visible spaces in flow', () => {
  /** Glyph index of every cell of the first rows of a 4x6 flow page. */
  const cellsOf = (text: string, cols: number): number[][] => {
    const atlas = atlasFor('4x6');
    const [page] = renderScanlines(text, { shape: { width: cols * 4, height: 24 }, variant: '4x6+flow' });
    const out: number[][] = [];
    for (let row = 0; row < 4; row++) {
      const cells: number[] = [];
      for (let col = 0; col < cols; col++) {
        const rows: number[] = [];
        for (let r = 0; r < 6; r++) {
          let v = 0;
          for (let b = 0; b < 4; b++) {
            const x = col * 4 + b;
            const y = row * 6 + r;
            v = (v << 1) | (1 - ((page!.scanlines[y * page!.stride + 1 + (x >> 3)]! >> (7 - (x & 7))) & 1));
          }
          rows.push(v << 4);
        }
        let found = -1;
        for (let g = 0; g < atlas.glyphCount && found < 0; g++) {
          if (rows.every((v, r) => atlas.glyphs[g * 6 + r] === v)) found = g;
        }
        cells.push(found);
      }
      out.push(cells);
    }
    return out;
  };
  const a = (c: string): number => atlasFor('4x6').bmp[c.charCodeAt(0)]!;

  it('marks indentation and the blank run that ends a full row, nothing else', () => {
    // 'ab cd' / '  ef' on 3 columns: ab· / cd¶ / ··e / f
    expect(cellsOf('ab cd\n  ef', 3)).toEqual([
      [a('a'), a('b'), GLYPH_SPACE],
      [a('c'), a('d'), GLYPH_NEWLINE],
      [GLYPH_SPACE, GLYPH_SPACE, a('e')],
      [a('f'), 0, 0],
    ]);
    // Inner spaces that do not end a row stay blank; so does the space after a visible cell.
    expect(cellsOf('a b  c', 8)[0]).toEqual([a('a'), 0, a('b'), 0, 0, a('c'), 0, 0]);
    // Indentation at the very start of the text, and across a row break.
    expect(cellsOf('    x', 3).slice(0, 2)).toEqual([
      [GLYPH_SPACE, GLYPH_SPACE, GLYPH_SPACE],
      [GLYPH_SPACE, a('x'), 0],
    ]);
  });
});
