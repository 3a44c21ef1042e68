import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decode } from '../../src/render/decode.js';
import { normalize } from '../../src/render/normalize.js';
import { encodePngSync } from '../../src/render/png.js';
import { countPages, renderScanlines, type LayoutOptions } from '../../src/render/reference.js';
import { CELL_NAMES, CELLS, type CellName } from '../../src/render/cells.js';

function roundTrip(text: string, options: LayoutOptions): { decoded: string; pages: number; chars: number } {
  const pngs: Uint8Array[] = [];
  let chars = 0;
  for (const page of renderScanlines(text, options)) {
    pngs.push(encodePngSync(page, { path: 'fflate', compression: 'fastest' }));
    chars += page.chars;
  }
  return { decoded: decode(pngs, { cell: options.cell, scale: options.scale }), pages: pngs.length, chars };
}

// Pieces that exercise every rule: CR/LF, tabs, trailing spaces, controls, surrogates, astral, escapes
// split across rows, glyphs escaped as duplicates (Cyrillic А), long runs without spaces.
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom('\n', '\r\n', '\r', '\t', ' ', '   ', '\n\n', ' \t ', '\r\r\n') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '\uD800',
      '\uDFFF',
      '\uDBFF\uDFFF',
      '😀',
      '\u0000',
      '\u007F',
      '\u0085',
      'А',
      'é',
      '─┼',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.integer({ min: 0, max: 0x2fff }).map((c) => String.fromCharCode(c)),
      maxLength: 8,
    }),
  },
);
const textArb = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

describe('normalize', () => {
  it('applies the four rules of §1', () => {
    expect(normalize('a\r\nb\rc\n')).toBe('a\nb\nc');
    expect(normalize('a\tb\n\tc\nabcd\te')).toBe('a   b\n    c\nabcd    e');
    expect(normalize('😀\tx')).toBe('😀   x'); // an astral code point is one column
    expect(normalize('x  \n  \ny \t')).toBe('x\n\ny');
    expect(normalize('\n\nlead')).toBe('\n\nlead');
    expect(normalize(' \n\t\r\n')).toBe('');
    expect(normalize('\u0000\uD800\u00A0')).toBe('\u0000\uD800\u00A0');
  });

  it('is idempotent', () => {
    fc.assert(fc.property(textArb, (t) => normalize(normalize(t)) === normalize(t)));
  });

  it('rejects a non-string with a TypeError', () => {
    expect(() => normalize(42 as unknown as string)).toThrow(/expected text to be a string, found number/);
  });
});

describe('decode(render(t)) === normalize(t)', () => {
  const shapes = [
    { cols: 2, rows: 2 },
    { cols: 3, rows: 2 },
    { cols: 7, rows: 3 },
    { cols: 16, rows: 5 },
  ];
  for (const cell of CELL_NAMES) {
    for (const scale of [1, 2]) {
      it(`${cell} at scale ${scale}`, () => {
        const { width: cw, height: ch } = CELLS[cell as CellName];
        fc.assert(
          fc.property(textArb, fc.constantFrom(...shapes), fc.integer({ min: 0, max: 7 }), (t, s, extra) => {
            // `extra` leaves a strip right of and below the grid that must stay background.
            const shape = { width: s.cols * cw * scale + extra, height: s.rows * ch * scale + (extra >> 1) };
            const options = { shape, cell, scale };
            const result = roundTrip(t, options);
            const expected = normalize(t);
            expect(result.decoded).toBe(expected);
            expect(result.chars).toBe([...expected].length);
            expect(countPages(t, options)).toMatchObject({ pages: result.pages, chars: result.chars });
            if (expected === '') expect(result.pages).toBe(0);
          }),
          { numRuns: 60 },
        );
      });
    }
  }

  it('keeps lines longer than many pages, with escapes cut by wraps and page ends', () => {
    const line = Array.from({ length: 400 }, (_, i) =>
      i % 7 === 0 ? '😀' : i % 11 === 0 ? '\u0001' : 'ab',
    ).join('');
    const text = `${line}\n\n${line.slice(5)}\t!\n`;
    const result = roundTrip(text, { shape: { width: 40, height: 24 } }); // 10 × 4 cells
    expect(result.pages).toBeGreaterThan(20);
    expect(result.decoded).toBe(normalize(text));
  });

  it('renders empty and blank input as zero pages', () => {
    for (const t of ['', '\n\n', '   \t\r\n ']) {
      expect([...renderScanlines(t, { shape: { width: 100, height: 100 } })]).toHaveLength(0);
      expect(decode([])).toBe('');
    }
  });
});
