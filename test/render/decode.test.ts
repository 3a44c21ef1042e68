import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  GLYPH_BLANK,
  GLYPH_HEX,
  GLYPH_MARK,
  GLYPH_NEWLINE,
  GLYPH_PLUS,
  GLYPH_SPACE,
  GLYPH_U,
  glyphOf,
} from '../../src/render/atlas.js';
import { atlasFor } from '../../src/render/atlases.js';
import { decode, readPng } from '../../src/render/decode.js';
import { encodePngSync } from '../../src/render/png.js';
import { renderScanlines } from '../../src/render/reference.js';
import { NO_SPACING } from '../../src/render/variant.js';
import {
  encodeTestPng,
  fixCrc,
  fromScanlines,
  type ColourFormat,
  type GreyImage,
} from '../helpers/png-encoder.js';

const TEXT =
  'Filters 1–4: ab\tc  é ─┼ 😀\nsecond line, wrapped far past the right edge of the page xyz\n\nend';
const SHAPE = { width: 4 * 23 + 3, height: 6 * 9 + 1 }; // odd sizes: the last byte of a row is partial

function pages(text: string): GreyImage[] {
  return [...renderScanlines(text, { shape: SHAPE })].map(fromScanlines);
}

function bitsOf(img: GreyImage): Uint8Array {
  const rowBytes = Math.ceil(img.width / 8);
  const bits = new Uint8Array(rowBytes * img.height);
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++)
      if (img.pixels[y * img.width + x]! >= 128) bits[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
  return bits;
}

describe('readPng un-filters every filter type (PNG §9.2) in every colour format', () => {
  const expected = decode([...renderScanlines(TEXT, { shape: SHAPE })].map((p) => encodePngSync(p)));
  const formats: ColourFormat[] = ['grey1', 'grey8', 'rgb', 'rgba'];
  const filterSets = [[0], [1], [2], [3], [4], [4, 3, 2, 1, 0]];
  for (const format of formats) {
    for (const filters of filterSets) {
      it(`${format}, filters ${filters.join(',')}`, () => {
        const imgs = pages(TEXT);
        const pngs = imgs.map((img) => encodeTestPng(img, format, filters));
        for (const [i, img] of imgs.entries()) {
          const bm = readPng(pngs[i]!);
          expect([bm.width, bm.height, bm.rowBytes]).toEqual([
            img.width,
            img.height,
            Math.ceil(img.width / 8),
          ]);
          expect(bm.bits).toEqual(bitsOf(img));
        }
        expect(decode(pngs)).toBe(expected);
      });
    }
  }

  it('un-filters noise exactly: Paeth ties, Average rounding and Sub/Up wrap-around at 255', () => {
    // Random grey levels exercise predictor arithmetic that a 2-level page never reaches: each pixel's
    // side of the threshold is what comes back, so any wrong byte on the way is likely to flip one.
    let seed = 12345;
    const rnd = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 0xff;
    for (const format of ['grey8', 'rgb', 'rgba'] as const) {
      for (const filter of [1, 2, 3, 4]) {
        const img: GreyImage = { width: 37, height: 11, pixels: new Uint8Array(37 * 11).map(rnd) };
        const tint = (): number => rnd();
        const bm = readPng(encodeTestPng(img, format, [filter], tint));
        expect(bm.bits, `${format} filter ${filter}`).toEqual(bitsOf(img));
      }
    }
  });

  it('thresholds grey and colour at exactly half intensity', () => {
    // grey: 127 is black, 128 white; RGB: the channel sum 383 is black, 384 white; alpha is ignored.
    const grey = (v: number): Uint8Array => {
      const img: GreyImage = { width: 2, height: 1, pixels: Uint8Array.of(v, v) };
      return encodeTestPng(img, 'grey8', [0], () => v);
    };
    // With a constant tint, rawLine puts `128 + (v & 127)` for white and `v & 127` for black.
    expect(readPng(grey(127)).bits[0]).toBe(0);
    const white = encodeTestPng({ width: 1, height: 1, pixels: Uint8Array.of(255) }, 'grey8', [0], () => 0);
    expect(readPng(white).bits[0]).toBe(0x80); // stored value 128
    const rgb = (r: number, g: number, b: number, a: number): number => {
      const img: GreyImage = { width: 1, height: 1, pixels: Uint8Array.of(r + g + b >= 384 ? 255 : 0) };
      const values = [r, g, b, a];
      // Write the exact channel values: build it white/black by the sum, then patch the raw values.
      return readPng(rawRgba(img.width, [values])).bits[0]!;
    };
    expect(rgb(128, 128, 128, 0)).toBe(0x80);
    expect(rgb(128, 128, 127, 255)).toBe(0);
    expect(rgb(255, 129, 0, 0)).toBe(0x80);
    expect(rgb(255, 128, 0, 255)).toBe(0);
  });
});

/** An RGBA PNG of one row with exact channel values (filter 0). */
function rawRgba(width: number, pixels: number[][]): Uint8Array {
  const img: GreyImage = { width, height: 1, pixels: new Uint8Array(width) };
  const flat = pixels.flat();
  return encodeTestPngExact(img, flat);
}

/** encodeTestPng with a tint that reproduces exact values: white/black is chosen so the tint survives. */
function encodeTestPngExact(img: GreyImage, flat: number[]): Uint8Array {
  // For RGBA the encoder writes 128 + (t & 127) for white and t & 127 for black per colour channel;
  // to store exact values we encode each pixel's colour channels on their own side.
  const png = encodeTestPng(img, 'rgba', [0], (i, c) => flat[i * 4 + c]!);
  // Rewrite IDAT with the exact bytes (the encoder's side-forcing is for threshold-safe tints).
  return patchIdat(png, Uint8Array.of(0, ...flat));
}

function patchIdat(png: Uint8Array, raw: Uint8Array): Uint8Array {
  // Rebuild from scratch: signature, IHDR copied, one IDAT, IEND.

  const ihdr = png.subarray(8, 8 + 25);
  const z = deflateSync(raw);
  const idat = new Uint8Array(12 + z.length);
  const view = new DataView(idat.buffer);
  view.setUint32(0, z.length);
  idat.set([0x49, 0x44, 0x41, 0x54], 4);
  idat.set(z, 8);
  const out = Buffer.concat([png.subarray(0, 8), ihdr, idat, png.subarray(png.length - 12)]);
  fixCrc(out, 33);
  return out;
}

describe('readPng rejects damaged or unsupported files, naming what and where', () => {
  const img = pages('damage')[0]!;
  const good = (): Uint8Array => encodeTestPng(img, 'grey1', [0]);

  it('a signature byte', () => {
    for (const i of [0, 7]) {
      const png = good();
      png[i]! ^= 1;
      expect(() => readPng(png, 'p')).toThrow(`p: not a PNG (signature differs at byte ${i})`);
    }
    expect(() => readPng('png' as unknown as Uint8Array)).toThrow(/expected a Uint8Array, found string/);
  });

  it('a corrupted CRC or chunk byte: expected vs found CRC, chunk type and offset', () => {
    const png = good();
    png[8 + 4 + 4 + 13]! ^= 0x40; // IHDR CRC, first byte
    expect(() => readPng(png, 'p')).toThrow(
      /^p: chunk IHDR at byte 8: CRC expected [0-9a-f]+, found [0-9a-f]+$/,
    );
    const png2 = good();
    png2[png2.length - 1]! ^= 1; // IEND CRC, last byte
    expect(() => readPng(png2, 'p')).toThrow(/chunk IEND at byte \d+: CRC/);
    const png3 = good();
    png3[8 + 8]! ^= 1; // IHDR data (width)
    expect(() => readPng(png3, 'p')).toThrow(/chunk IHDR at byte 8: CRC/);
  });

  it("names the file 'png' when no label is given, and a missing IHDR as colour type -1", () => {
    const png = good();
    png[0] = 0;
    expect(() => readPng(png)).toThrow('png: not a PNG (signature differs at byte 0)');
    // Signature, then IEND only: no header was read.
    const bare = Buffer.concat([good().subarray(0, 8), good().subarray(good().length - 12)]);
    expect(() => readPng(bare, 'p')).toThrow(
      'p: expected greyscale 1 or 8 bits, or RGB/RGBA 8 bits; found colour type -1, depth 0',
    );
  });

  it('a chunk running past the end, and a missing IEND', () => {
    const png = good();
    // Fewer than 12 bytes left cannot hold a chunk: the loop stops and IEND is missing.
    expect(() => readPng(png.subarray(0, png.length - 1), 'p')).toThrow('p: no IEND chunk');
    expect(() => readPng(png.subarray(0, png.length - 12), 'p')).toThrow('p: no IEND chunk');
    // A length that reaches exactly the end is fine; one byte more is not.
    const view = new DataView(png.buffer, png.byteOffset);
    view.setUint32(png.length - 12, 1);
    expect(() => readPng(png, 'p')).toThrow(/IEND at byte \d+ runs past the end/);
  });

  it('interlace, compression or filter method other than 0', () => {
    for (const at of [10, 11, 12]) {
      const png = good();
      png[16 + at]! = 1;
      fixCrc(png, 8);
      expect(() => readPng(png, 'p')).toThrow('p: expected compression 0, filter 0, no interlace in IHDR');
    }
  });

  it('colour types and depths it does not read', () => {
    for (const [depth, colour] of [
      [8, 3],
      [8, 4],
      [16, 0],
      [16, 2],
      [2, 0],
      [1, 2],
    ] as const) {
      const png = good();
      png[16 + 8] = depth;
      png[16 + 9] = colour;
      fixCrc(png, 8);
      expect(() => readPng(png, 'p')).toThrow(
        `p: expected greyscale 1 or 8 bits, or RGB/RGBA 8 bits; found colour type ${colour}, depth ${depth}`,
      );
    }
  });

  it('an unknown filter type, naming the scanline', () => {
    const png = encodeTestPng(img, 'grey8', [0]);
    // Re-encode with filter 5 on row 2: build the raw data by hand.
    const w = img.width;
    const raw = new Uint8Array(img.height * (w + 1));
    for (let y = 0; y < img.height; y++) raw[y * (w + 1)] = y === 2 ? 5 : 0;
    const bad = patchIdat(png, raw);
    expect(() => readPng(bad, 'p')).toThrow('p: scanline 2: filter type expected 0–4, found 5');
  });

  it('image data shorter than the header says', () => {
    const png = encodeTestPng(img, 'grey8', [0]);
    const w = img.width;
    const short = patchIdat(png, new Uint8Array(img.height * (w + 1) - 1));
    expect(() => readPng(short, 'p')).toThrow(
      `p: image data expected ${img.height * (w + 1)} bytes, found ${img.height * (w + 1) - 1}`,
    );
    // Exactly enough is fine.
    expect(readPng(patchIdat(png, new Uint8Array(img.height * (w + 1)))).height).toBe(img.height);
  });
});

/** A page built cell by cell from glyph ids (4x6, scale 1), to feed decode sequences render never writes. */
function composed(rows: number[][], cols = 8, layoutRows = Math.max(2, rows.length)): Uint8Array {
  const atlas = atlasFor('4x6', NO_SPACING);
  const { cellWidth: cw, cellHeight: ch } = atlas;
  const width = cols * cw;
  const height = layoutRows * ch;
  const pixels = new Uint8Array(width * height).fill(255);
  rows.forEach((glyphs, row) => {
    for (let col = 0; col < cols; col++) {
      const g = glyphs[col] ?? GLYPH_BLANK;
      for (let r = 0; r < ch; r++) {
        const bits = atlas.glyphs[g * ch + r]!;
        for (let b = 0; b < cw; b++)
          if ((bits >> (7 - b)) & 1) pixels[(row * ch + r) * width + col * cw + b] = 0;
      }
    }
  });
  return encodeTestPng({ width, height, pixels }, 'grey1', [0]);
}

const atlas = atlasFor('4x6', NO_SPACING);
const ch = (c: string): number => glyphOf(atlas, c.codePointAt(0)!);
const word = (s: string): number[] => [...s].map(ch);
const esc = (s: string): number[] =>
  [...s].map((c) => (c === 'U' ? GLYPH_U : c === '+' ? GLYPH_PLUS : GLYPH_HEX + parseInt(c, 16)));

describe('decode reads escapes, marks and blanks by the rules, and names malformed ones', () => {
  it('reads well-formed escapes of 4, 5 and 6 digits, back to back and at a row end', () => {
    expect(decode([composed([[...word('a'), ...esc('U+00E9')], esc('U+1F600')])])).toBe('aé\n😀');
    expect(decode([composed([esc('U+10FFFF')], 8)])).toBe('\u{10FFFF}');
    expect(decode([composed([[...esc('U+0041U+0042')]], 12)])).toBe('AB');
  });

  it.each([
    ['+0041', "escape '+0041' at page 1, row 1, column 1: expected it to start with U+"],
    ['AU+0041', "escape 'AU+0041' at page 1, row 1, column 1: expected it to start with U+"],
    ['U+041', "found 'U+041'"],
    ['U+1234567', "found 'U+1234567'"],
    ['U+110000', "found 'U+110000'"],
    ['U+01F600', "found 'U+01F600'"],
    ['U+', "found 'U+'"],
    ['U+00e9', "found 'U+00e9'"],
    // Anchored both ends: a stray U or + inside the digits is malformed, not skipped.
    ['U+U0041', "found 'U+U0041'"],
    ['U+0041+', "found 'U+0041+'"],
  ])('malformed escape %s', (spelled, message) => {
    // Lower-case hex cannot be drawn (the atlas has upper-case digits only): spell it with letters.
    const cells = [...spelled].map((c) => (/[a-z]/.test(c) ? ch(c) : esc(c)[0]!));
    if (spelled === 'U+00e9') {
      // 'e' is a letter glyph, so the escape is 'U+00' followed by the letter: too few digits.
      expect(() => decode([composed([cells], 12)])).toThrow("found 'U+00'");
      return;
    }
    expect(() => decode([composed([cells], 12)])).toThrow(message);
  });

  it('names where an escape starts when it continues on the next row', () => {
    const first = [...word('ab'), ...esc('U+1'), GLYPH_MARK];
    expect(decode([composed([first, esc('F600')], 6)])).toBe('ab😀');
    expect(() => decode([composed([first, esc('F6')], 6)])).toThrow(
      "escape 'U+1F6' at page 1, row 1, column 3: expected U+ and 4–6 hex digits, found 'U+1F6'",
    );
  });

  it('a continuation mark anywhere but the last column is an error; in the last column it joins rows', () => {
    expect(decode([composed([[...word('abc'), GLYPH_MARK], word('d')], 4)])).toBe('abcd');
    expect(() => decode([composed([[...word('ab'), GLYPH_MARK, ...word('c')]], 4)])).toThrow(
      'page 1, row 1, column 3: continuation mark before the last column',
    );
    expect(() => decode([composed([[...word('ab'), GLYPH_MARK]], 4)], { layout: 'flow' })).toThrow(
      'page 1, row 1, column 3: continuation mark in a flow page',
    );
  });

  it('space and newline marks are flow-only', () => {
    const row = [...word('a'), GLYPH_SPACE, ...word('b'), GLYPH_NEWLINE, ...word('c')];
    expect(() => decode([composed([row], 6)])).toThrow(
      "page 1, row 1, column 2: space mark in a lines page (decode it as layout 'flow')",
    );
    expect(() => decode([composed([[...word('a'), GLYPH_NEWLINE]], 6)])).toThrow(
      "page 1, row 1, column 2: newline mark in a lines page (decode it as layout 'flow')",
    );
    // In flow a row is read whole: blank cells are spaces, the marks are a space and a newline; only
    // the text's end loses its blanks.
    expect(decode([composed([row, word('d')], 6)], { layout: 'flow' })).toBe('a b\nc d');
  });

  it('lines: trailing blanks of a row are dropped, inner ones kept; blank rows at the end are no rows', () => {
    const page = composed([[...word('a'), GLYPH_BLANK, ...word('b')], [], word('c'), [], []], 5, 6);
    expect(decode([page])).toBe('a b\n\nc');
    // Two pages: the first page's last blank rows are rows (only the end of the last page is trimmed).
    expect(decode([composed([word('x')], 3, 2), composed([word('y')], 3, 2)])).toBe('x\n\ny');
  });

  it('names page, row and column of a cell that is no glyph, and of every page', () => {
    const atlasGlyphs = atlasFor('4x6', NO_SPACING).glyphCount;
    expect(atlasGlyphs).toBeGreaterThan(GLYPH_SPACE);
    const width = 4 * 3;
    const pixels = new Uint8Array(width * 12).fill(255);
    // A checkerboard in row 2, column 3: no glyph of the font is one.
    for (let r = 0; r < 6; r++)
      for (let b = 0; b < 4; b++) if ((r + b) % 2) pixels[(6 + r) * width + 8 + b] = 0;
    const bad = encodeTestPng({ width, height: 12, pixels }, 'grey1', [0]);
    expect(() => decode([composed([word('ok')], 3), bad])).toThrow(
      'page 2, row 2, column 3: the cell matches no 4x6 glyph (wrong cell or scale?)',
    );
    expect(() => decode('x' as unknown as Uint8Array[])).toThrow(
      /expected an array of PNG byte arrays, found string/,
    );
  });
});
