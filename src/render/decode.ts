/**
 * Reads pages back into text (docs/renderer.md §3–§5): inflate, un-filter, cut the page into cells,
 * look each cell's bitmap up in the atlas, and undo the layout (escapes, continuation marks, trailing
 * blanks). `decode(render(t)) === normalize(t)` for every string `t`. Edge-safe (inflate.ts inflates).
 */
import {
  GLYPH_BLANK,
  GLYPH_HEX,
  GLYPH_MARK,
  GLYPH_NEWLINE,
  GLYPH_PLUS,
  GLYPH_SPACE,
  GLYPH_U,
  type Atlas,
} from './atlas.js';
import { atlasFor } from './atlases.js';
import type { CellName } from './cells.js';
import { crc32 } from './crc32.js';
import { MAX_PAGE_PIXELS, MAX_PAGE_SIDE, pageGeometry } from './geometry.js';
import { inflateZlib } from './inflate.js';
import { PNG_SIGNATURE } from './png.js';
import { variantOf, type Layout, type Spacing, type Variant } from './variant.js';

/** The variant the pages were rendered with (the same fields as render's options). */
export interface DecodeOptions {
  cell?: CellName;
  scale?: number;
  spacing?: Partial<Spacing>;
  layout?: Layout;
  /** A variant id (`6x10+r1+flow`) or object; wins over cell, scale, spacing and layout. */
  variant?: string | Variant;
}

/** A page as 1-bit rows: `bits[y * rowBytes + (x >> 3)]`, bit `7 - (x & 7)`, 1 = white. */
interface Bitmap {
  width: number;
  height: number;
  rowBytes: number;
  bits: Uint8Array;
}

/** PNG spec §9.4: the Paeth predictor. */
function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Parses a PNG (signature §5.2, chunks §5.3 with CRC §5.5, IHDR §11.2.2, IDAT §11.2.4) and returns its
 * pixels as a 1-bit bitmap. Accepts greyscale (1 or 8 bits), RGB and RGBA (8 bits), any filter types
 * (§9.2), no interlace; colour images are thresholded at half intensity.
 */
export function readPng(png: Uint8Array, label = 'png'): Bitmap {
  if (!(png instanceof Uint8Array))
    throw new TypeError(`${label}: expected a Uint8Array, found ${typeof png}`);
  for (let i = 0; i < 8; i++) {
    if (png[i] !== PNG_SIGNATURE[i])
      throw new RangeError(`${label}: not a PNG (signature differs at byte ${i})`);
  }
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  let width = 0;
  let height = 0;
  let depth = 0;
  let colour = -1;
  const idat: Uint8Array[] = [];
  let ended = false;
  while (at + 12 <= png.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    const end = at + 8 + length;
    if (end + 4 > png.length) throw new RangeError(`${label}: chunk ${type} at byte ${at} runs past the end`);
    const crc = view.getUint32(end);
    const actual = crc32(png, at + 4, end);
    if (crc !== actual) {
      throw new RangeError(
        `${label}: chunk ${type} at byte ${at}: CRC expected ${actual.toString(16)}, found ${crc.toString(16)}`,
      );
    }
    const data = png.subarray(at + 8, end);
    if (type === 'IHDR') {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      depth = data[8]!;
      colour = data[9]!;
      if (data[10] !== 0 || data[11] !== 0 || data[12] !== 0) {
        throw new RangeError(`${label}: expected compression 0, filter 0, no interlace in IHDR`);
      }
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      ended = true;
      break;
    }
    at = end + 4;
  }
  if (!ended) throw new RangeError(`${label}: no IEND chunk`);
  const channels = colour === 0 ? 1 : colour === 2 ? 3 : colour === 6 ? 4 : 0;
  if (!(channels === 1 && depth === 1) && !(channels > 0 && depth === 8)) {
    throw new RangeError(
      `${label}: expected greyscale 1 or 8 bits, or RGB/RGBA 8 bits; found colour type ${colour}, depth ${depth}`,
    );
  }
  // The declared size is checked before anything is inflated, and inflating stops at what it needs.
  if (
    width < 1 ||
    height < 1 ||
    width > MAX_PAGE_SIDE ||
    height > MAX_PAGE_SIDE ||
    width * height > MAX_PAGE_PIXELS
  )
    throw new RangeError(
      `${label}: IHDR declares ${width}x${height} pixels; a page is 1–${MAX_PAGE_SIDE} pixels a side and at most ${MAX_PAGE_PIXELS} pixels`,
    );
  const total = idat.reduce((n, d) => n + d.length, 0);
  const joined = new Uint8Array(total);
  let o = 0;
  for (const d of idat) {
    joined.set(d, o);
    o += d.length;
  }
  const lineBytes = Math.ceil((width * channels * depth) / 8);
  let raw: Uint8Array;
  try {
    raw = inflateZlib(joined, height * (lineBytes + 1), height * (lineBytes + 1));
  } catch (err) {
    throw new RangeError(`${label}: image data: ${(err as Error).message}`, { cause: err });
  }
  const bpp = Math.max(1, (channels * depth) >> 3); // filter unit, §9.2
  if (raw.length < height * (lineBytes + 1)) {
    throw new RangeError(
      `${label}: image data expected ${height * (lineBytes + 1)} bytes, found ${raw.length}`,
    );
  }
  const rowBytes = Math.ceil(width / 8);
  const bits = new Uint8Array(height * rowBytes);
  let prev = new Uint8Array(lineBytes);
  let line = new Uint8Array(lineBytes);
  for (let y = 0; y < height; y++) {
    const base = y * (lineBytes + 1);
    const filter = raw[base]!;
    const src = raw.subarray(base + 1, base + 1 + lineBytes);
    switch (filter) {
      case 0:
        line.set(src);
        break;
      case 1:
        for (let i = 0; i < lineBytes; i++) line[i] = src[i]! + (i >= bpp ? line[i - bpp]! : 0);
        break;
      case 2:
        for (let i = 0; i < lineBytes; i++) line[i] = src[i]! + prev[i]!;
        break;
      case 3:
        for (let i = 0; i < lineBytes; i++)
          line[i] = src[i]! + (((i >= bpp ? line[i - bpp]! : 0) + prev[i]!) >> 1);
        break;
      case 4:
        for (let i = 0; i < lineBytes; i++) {
          line[i] = src[i]! + paeth(i >= bpp ? line[i - bpp]! : 0, prev[i]!, i >= bpp ? prev[i - bpp]! : 0);
        }
        break;
      default:
        throw new RangeError(`${label}: scanline ${y}: filter type expected 0–4, found ${filter}`);
    }
    const out = y * rowBytes;
    if (depth === 1) {
      bits.set(line.subarray(0, rowBytes), out);
    } else {
      for (let x = 0; x < width; x++) {
        let sum = 0;
        for (let c = 0; c < Math.min(channels, 3); c++) sum += line[x * channels + c]!;
        const white = sum >= 128 * Math.min(channels, 3);
        if (white) bits[out + (x >> 3)]! |= 0x80 >> (x & 7);
      }
    }
    [prev, line] = [line, prev];
  }
  return { width, height, rowBytes, bits };
}

/** Exact bitmap → glyph lookup: an open-addressing hash of the cell rows, verified on hit. */
interface GlyphIndex {
  slots: Int32Array;
  mask: number;
}

const indexes = new WeakMap<Atlas, GlyphIndex>();

function hashRows(rows: Uint8Array | number[], start: number, ch: number): number {
  let h = 0x811c9dc5;
  for (let r = 0; r < ch; r++) h = Math.imul(h ^ rows[start + r]!, 0x01000193);
  return h >>> 0;
}

function glyphIndex(atlas: Atlas): GlyphIndex {
  let index = indexes.get(atlas);
  if (index) return index;
  let size = 1;
  while (size < atlas.glyphCount * 2) size <<= 1;
  const slots = new Int32Array(size).fill(-1);
  const mask = size - 1;
  for (let g = 0; g < atlas.glyphCount; g++) {
    let s = hashRows(atlas.glyphs, g * atlas.cellHeight, atlas.cellHeight) & mask;
    while (slots[s] !== -1) s = (s + 1) & mask;
    slots[s] = g;
  }
  index = { slots, mask };
  indexes.set(atlas, index);
  return index;
}

function lookup(atlas: Atlas, index: GlyphIndex, rows: Uint8Array): number {
  const ch = atlas.cellHeight;
  let s = hashRows(rows, 0, ch) & index.mask;
  for (;;) {
    const g = index.slots[s]!;
    if (g === -1) return -1;
    let same = true;
    for (let r = 0; r < ch && same; r++) same = atlas.glyphs[g * ch + r] === rows[r];
    if (same) return g;
    s = (s + 1) & index.mask;
  }
}

const HEX = '0123456789ABCDEF';

/**
 * Decodes rendered pages, in order, back to the normalized text they hold. `cell` and `scale` must be
 * the ones the pages were rendered with. Throws a RangeError naming the page, row and column of a cell
 * that is not in the atlas or an escape that is malformed.
 */
export function decode(pngs: readonly Uint8Array[], options: DecodeOptions = {}): string {
  if (!Array.isArray(pngs))
    throw new TypeError(`decode: expected an array of PNG byte arrays, found ${typeof pngs}`);
  const v = variantOf(options);
  const { cell, scale } = v;
  const flow = v.layout === 'flow';
  const atlas = atlasFor(cell, v.spacing);
  const index = glyphIndex(atlas);
  const { cellWidth: cw, cellHeight: ch, codePoints } = atlas;
  const cellRows = new Uint8Array(ch);
  const glyphRow = new Int32Array(0);
  let rowGlyphs = glyphRow;

  let text = '';
  let escape = ''; // spelled characters of the current inverted run
  let escapeAt = '';

  const flushEscape = (): void => {
    if (escape === '') return;
    const parts = escape.split('U+');
    if (parts[0] !== '')
      throw new RangeError(`escape '${escape}' at ${escapeAt}: expected it to start with U+`);
    for (const hex of parts.slice(1)) {
      const cp = parseInt(hex, 16);
      if (!/^[0-9A-F]{4,6}$/.test(hex) || cp > 0x10ffff || (hex.length > 4 && hex[0] === '0')) {
        throw new RangeError(
          `escape '${escape}' at ${escapeAt}: expected U+ and 4–6 hex digits, found 'U+${hex}'`,
        );
      }
      text += cp < 0x10000 ? String.fromCharCode(cp) : String.fromCodePoint(cp);
    }
    escape = '';
  };

  pngs.forEach((png, p) => {
    const label = `page ${p + 1}`;
    const bitmap = readPng(png, label);
    const g = pageGeometry({ width: bitmap.width, height: bitmap.height }, cell, scale, v.spacing, v.layout);
    if (rowGlyphs.length !== g.cols) rowGlyphs = new Int32Array(g.cols);
    const { bits, rowBytes } = bitmap;
    const shift = 8 - cw;
    for (let row = 0; row < g.rows; row++) {
      for (let col = 0; col < g.cols; col++) {
        const x0 = col * cw * scale;
        for (let r = 0; r < ch; r++) {
          const y = (row * ch + r) * scale;
          let v = 0;
          for (let b = 0; b < cw; b++) {
            const x = x0 + b * scale;
            v = (v << 1) | ((bits[y * rowBytes + (x >> 3)]! >> (7 - (x & 7))) & 1);
          }
          cellRows[r] = (~v & ((1 << cw) - 1)) << shift; // ink = 1, MSB-aligned like the atlas
        }
        const glyph = lookup(atlas, index, cellRows);
        if (glyph < 0) {
          throw new RangeError(
            `${label}, row ${row + 1}, column ${col + 1}: the cell matches no ${cell} glyph (wrong cell or scale?)`,
          );
        }
        rowGlyphs[col] = glyph;
      }
      // Flow rows are read whole (a blank cell is a space; only the text's end is trimmed, below);
      // lines rows end at a continuation mark or lose their trailing blanks.
      const wrapped = flow || rowGlyphs[g.cols - 1] === GLYPH_MARK;
      let end = wrapped && !flow ? g.cols - 1 : g.cols;
      if (!wrapped) while (end > 0 && rowGlyphs[end - 1] === GLYPH_BLANK) end--;
      for (let col = 0; col < end; col++) {
        const glyph = rowGlyphs[col]!;
        if (glyph >= GLYPH_HEX && glyph <= GLYPH_PLUS) {
          if (escape === '') escapeAt = `${label}, row ${row + 1}, column ${col + 1}`;
          escape += glyph === GLYPH_U ? 'U' : glyph === GLYPH_PLUS ? '+' : HEX[glyph - GLYPH_HEX];
          continue;
        }
        flushEscape();
        if (glyph === GLYPH_MARK) {
          throw new RangeError(
            `${label}, row ${row + 1}, column ${col + 1}: continuation mark ${flow ? 'in a flow page' : 'before the last column'}`,
          );
        }
        if (glyph === GLYPH_SPACE) {
          if (!flow) {
            throw new RangeError(
              `${label}, row ${row + 1}, column ${col + 1}: space mark in a lines page (decode it as layout 'flow')`,
            );
          }
          text += ' ';
          continue;
        }
        if (glyph === GLYPH_NEWLINE) {
          if (!flow) {
            throw new RangeError(
              `${label}, row ${row + 1}, column ${col + 1}: newline mark in a lines page (decode it as layout 'flow')`,
            );
          }
          text += '\n';
          continue;
        }
        const cp = codePoints[glyph]!;
        text += cp < 0x10000 ? String.fromCharCode(cp) : String.fromCodePoint(cp);
      }
      if (!wrapped) {
        flushEscape();
        text += '\n';
      }
    }
  });
  flushEscape();
  // Blank rows after the last line of the last page are no rows (§1 rule 4); in flow, the blank cells
  // after the text's last character are no spaces (§1 rule 3).
  let end = text.length;
  const blank = flow ? 32 : 10;
  while (end > 0 && text.charCodeAt(end - 1) === blank) end--;
  return text.slice(0, end);
}
