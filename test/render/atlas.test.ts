import { describe, expect, it } from 'vitest';
import { BdfError, parseBdf } from '../../src/render/bdf.js';
import {
  buildAtlas,
  decodeAtlas,
  FIRST_DRAWABLE,
  GLYPH_BLANK,
  GLYPH_HEX,
  GLYPH_MARK,
  glyphOf,
  isControl,
} from '../../src/render/atlas.js';
import { atlasFor } from '../../src/render/atlases.js';
import { CELL_NAMES, CELLS } from '../../src/render/cells.js';
import { loadFont, loadFontTable } from '../../scripts/lib/fonts.js';

const table = loadFontTable();
const entry = (cell: string) => table.find((f) => f.name === cell)!;
/** The font of a table row as the build sees it (BDF checked by sha256, tuned overrides applied). */
const font = (cell: string) => loadFont(entry(cell), table);

const header = 'STARTFONT 2.1\nFONTBOUNDINGBOX 4 6 0 -1\nCHARS 1\n';

describe('parseBdf', () => {
  it('reads every font of the table at its cell size', () => {
    for (const cell of CELL_NAMES) {
      const f = font(cell);
      expect({ width: f.width, height: f.height }).toEqual(CELLS[cell]);
      const a = f.glyphs.find((g) => g.codePoint === 0x41)!;
      expect(a.rows.length).toBe(f.height);
      expect(a.rows.some((r) => r !== 0)).toBe(true);
    }
  });

  it('places a glyph by its BBX offsets inside the font bounding box', () => {
    // A 2×2 glyph at x offset 1, y offset 0 (baseline): cell rows 3 and 4 (baseline is above row 5).
    const text = `${header}STARTCHAR dot\nENCODING 46\nBBX 2 2 1 0\nBITMAP\nC0\n40\nENDCHAR\nENDFONT\n`;
    const [g] = parseBdf(text).glyphs;
    expect(g!.rows).toEqual([0, 0, 0, 0b0110, 0b0010, 0]);
  });

  it('names the line of a malformed bitmap row', () => {
    const text = `${header}STARTCHAR x\nENCODING 120\nBBX 4 6 0 -1\nBITMAP\nF0\nZZ\n`;
    expect(() => parseBdf(text)).toThrow(BdfError);
    expect(() => parseBdf(text)).toThrow(
      /BDF line 9: glyph 'x': bitmap row 2 of 6: expected 2 hex digits, found 'ZZ'/,
    );
  });

  it('rejects a BBX outside the bounding box and a glyph without ENDCHAR', () => {
    const outside = `${header}STARTCHAR x\nENCODING 120\nBBX 4 6 1 -1\nBITMAP\n`;
    expect(() => parseBdf(outside)).toThrow(
      /line 7: glyph 'x': BBX 4 6 1 -1 lies outside FONTBOUNDINGBOX 4 6 0 -1/,
    );
    const open = `${header}STARTCHAR x\nENCODING 120\nSTARTCHAR y\n`;
    expect(() => parseBdf(open)).toThrow(/line 6: glyph 'x' \(line 4\) ends without ENDCHAR/);
    expect(() => parseBdf('hello')).toThrow(/line 1: expected STARTFONT/);
  });
});

describe('atlas', () => {
  for (const cell of CELL_NAMES) {
    describe(cell, () => {
      const atlas = atlasFor(cell);

      it('matches a fresh build from the BDF (generated file is current)', () => {
        expect(buildAtlas(font(cell), entry(cell).mark)).toEqual(atlas.bytes);
      });

      it('holds pairwise distinct glyphs, reserved ones first', () => {
        const { glyphs, cellHeight: ch } = atlas;
        const keys = new Set<string>();
        for (let g = 0; g < atlas.glyphCount; g++) keys.add(glyphs.subarray(g * ch, (g + 1) * ch).join());
        expect(keys.size).toBe(atlas.glyphCount);
        expect([...glyphs.subarray(GLYPH_BLANK * ch, ch)].every((r) => r === 0)).toBe(true);
        // Inverted '0' has more ink than background.
        const zero = glyphs.subarray(GLYPH_HEX * ch, (GLYPH_HEX + 1) * ch);
        const ink = [...zero].reduce((n, r) => n + r.toString(2).split('1').length - 1, 0);
        expect(ink).toBeGreaterThan((atlas.cellWidth * ch) / 2);
      });

      it('maps space to the blank, never maps controls or reserved glyphs', () => {
        expect(glyphOf(atlas, 0x20)).toBe(GLYPH_BLANK);
        expect(glyphOf(atlas, 0x41)).toBeGreaterThanOrEqual(FIRST_DRAWABLE);
        for (let cp = 0; cp < 0x10000; cp++) {
          const g = glyphOf(atlas, cp);
          if (isControl(cp) || (cp >= 0xd800 && cp <= 0xdfff)) expect(g).toBe(-1);
          if (cp !== 0x20 && g !== -1) expect(g).toBeGreaterThanOrEqual(FIRST_DRAWABLE);
          if (g !== -1) expect(atlas.codePoints[g]).toBe(cp);
        }
        expect(glyphOf(atlas, 0x1f600)).toBe(-1);
        expect(atlas.codePoints[GLYPH_MARK]).toBe(-1);
      });
    });
  }

  it('lets the preferred blocks keep a shared bitmap: ─ │ ↑ • stay drawable where the font has them', () => {
    // What each font cannot draw of these (absent, or the same bitmap as an earlier preferred glyph:
    // 5x7's '—' is its '─', spleen-5x8's '│' is its '|').
    const missing: Record<string, string> = {
      '5x7': '—',
      '6x9': '—',
      '6x12': '—',
      '6x13': '—',
      'spleen-5x8': '│↑→•—',
      'spleen-6x12': '↑→•—',
      'terminus-6x12': '—',
    };
    for (const cell of CELL_NAMES) {
      const lacks = [...'─│┼└┌┐┘├┤┬┴↑→•—'].filter((c) => glyphOf(atlasFor(cell), c.codePointAt(0)!) === -1);
      expect(lacks.join(''), cell).toBe(missing[cell] ?? '');
    }
    expect(glyphOf(atlasFor('4x6'), 0x23bc)).toBe(-1); // '⎼' looks like '─' and is escaped instead
  });

  it('escapes a code point whose glyph copies an earlier one (Cyrillic А is Latin A in 4x6)', () => {
    const a = atlasFor('4x6');
    expect(glyphOf(a, 0x41)).not.toBe(-1);
    expect(glyphOf(a, 0x410)).toBe(-1);
  });

  it('rejects a continuation mark equal to a font glyph, and corrupt binaries', () => {
    const f = font('4x6');
    const x = f.glyphs.find((g) => g.codePoint === 0x78)!;
    // The mark is drawn inverted: art whose inverse is the font's 'x' collides with it.
    const art = x.rows.map((r) =>
      (~r & 15).toString(2).padStart(4, '0').replace(/0/g, '.').replace(/1/g, '#'),
    );
    expect(() => buildAtlas(f, art)).toThrow(/continuation mark equals the font's glyph for U\+78/);
    const bytes = atlasFor('4x6').bytes;
    expect(() => decodeAtlas(bytes.subarray(0, bytes.length - 1))).toThrow(/atlas: header says 4x6/);
  });
});
