/**
 * The glyph atlas: which code points a cell font draws, and their bitmaps, in the binary layout of
 * docs/renderer.md §6. `buildAtlas` runs at build time (scripts/build-fonts.ts); `decodeAtlas` runs
 * once per cell at run time (see atlases.ts). Pure functions, no I/O.
 */
import type { BdfFont } from './bdf.js';

/** Glyph 0: the blank cell (space). */
export const GLYPH_BLANK = 0;
/** Glyph 1: the continuation mark drawn in the last column of a soft-wrapped row (the art, inverted). */
export const GLYPH_MARK = 1;
/** Glyphs 2–17: inverted '0'–'9', 'A'–'F' (escape digits). */
export const GLYPH_HEX = 2;
/** Glyph 18: inverted 'U'. */
export const GLYPH_U = 18;
/** Glyph 19: inverted '+'. */
export const GLYPH_PLUS = 19;
/** Glyph 20: the newline mark of the flow layout (the font's own pilcrow, ¶, inverted). */
export const GLYPH_NEWLINE = 20;
/** Glyph 21: the visible space of the flow layout (the font's own middle dot, ·). */
export const GLYPH_SPACE = 21;
/** The first glyph a code point other than space can map to. */
export const FIRST_DRAWABLE = 22;
/** The code point whose bitmap, inverted, is the newline mark (a literal ¶ stays an ordinary glyph). */
export const NEWLINE_MARK_CODE_POINT = 0xb6;
/** The code point whose bitmap is the visible space mark; in text it is escaped (`U+00B7`). */
export const SPACE_MARK_CODE_POINT = 0xb7;

const ESCAPE_CHARS = '0123456789ABCDEFU+';
const HEADER_BYTES = 12;
const RANGE_BYTES = 12;

/**
 * When two code points share a bitmap only one can keep it (the other is escaped). These blocks, in
 * this order, choose first — they are what agent transcripts are made of (ASCII, Latin-1, box drawing
 * for trees and tables, block elements, arrows, punctuation) — then every other code point ascending.
 * Without this, U+2500 '─' would lose to U+23BC '⎼' in 4x6 and U+2502 '│' to U+20D2 (a combining
 * mark) in 5x8 and 6x10.
 */
export const PREFERRED_BLOCKS: readonly (readonly [number, number])[] = [
  [0x0020, 0x007e],
  [0x00a0, 0x00ff],
  [0x2500, 0x257f],
  [0x2580, 0x259f],
  [0x2190, 0x21ff],
  [0x2000, 0x206f],
];

function atlasOrder(codePoints: number[]): number[] {
  const rank = (cp: number): number => {
    const i = PREFERRED_BLOCKS.findIndex(([lo, hi]) => cp >= lo && cp <= hi);
    return i < 0 ? PREFERRED_BLOCKS.length : i;
  };
  return codePoints
    .map((cp) => [rank(cp), cp] as const)
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map(([, cp]) => cp);
}

/** A decoded atlas, ready for lookups. */
export interface Atlas {
  cellWidth: number;
  cellHeight: number;
  glyphCount: number;
  /** `rangeCount × [firstCodePoint, count, firstGlyph]`, sorted by code point. */
  ranges: Uint32Array;
  /**
   * `glyphCount × cellHeight` rows; row `r` of glyph `g` is `glyphs[g * cellHeight + r]`, holding
   * `cellWidth` pixels in its most significant bits, `1` = ink.
   */
  glyphs: Uint8Array;
  /** Glyph of each BMP code point, or -1 when it is escaped. Astral code points: {@link glyphOf}. */
  bmp: Int16Array;
  /** Code point each glyph ≥ FIRST_DRAWABLE (and glyph 0, space) stands for; -1 for glyphs 1–19. */
  codePoints: Int32Array;
  /** The binary layout this atlas was decoded from. */
  bytes: Uint8Array;
}

function parseArt(art: readonly string[], width: number, height: number): number[] {
  if (art.length !== height || art.some((row) => row.length !== width || !/^[.#]+$/.test(row))) {
    throw new RangeError(`continuation mark must be ${height} rows of ${width} '.'/'#' characters`);
  }
  return art.map((row) => [...row].reduce((bits, ch) => (bits << 1) | (ch === '#' ? 1 : 0), 0));
}

/** A pilcrow for fonts without one: a filled bowl on the left of two stems, cap height to baseline. */
function pilcrowArt(cw: number, ch: number): number[] {
  const top = 1;
  const base = ch - 2;
  const rows = new Array<number>(ch).fill(0);
  const stemA = 1 << 1; // column cw − 2
  const stemB = cw >= 5 ? 1 << 3 : 0; // column cw − 4
  for (let r = top; r <= base; r++) rows[r] = stemA | stemB;
  const bowl = ((1 << (cw - 1)) - 1) & ~1; // columns 1 … cw − 2
  rows[top] = bowl | stemA;
  for (let r = top + 1; r < top + Math.ceil((base - top) / 2); r++) rows[r] = rows[r]! | bowl;
  return rows;
}

/** A middle dot for fonts without one: a 1-px dot (2 px from 6 px wide) centred at half the x-height. */
function middleDotArt(cw: number, ch: number): number[] {
  const rows = new Array<number>(ch).fill(0);
  const x = Math.floor((cw - 1) / 2);
  rows[Math.floor((ch - 1) / 2)] = (cw >= 6 ? 3 : 1) << (cw - 1 - x - (cw >= 6 ? 1 : 0));
  return rows;
}

/** True for the code points §3 always escapes: C0 controls (except `\n`) and DEL + C1 controls. */
export function isControl(codePoint: number): boolean {
  return codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f);
}

/**
 * Builds the binary atlas of a font (docs/renderer.md §6). Glyphs 0–21 are reserved (blank, `mark`,
 * the inverted escape characters, the newline and space marks). Then every code point, in atlas order ({@link PREFERRED_BLOCKS}
 * first, then ascending), gets the next glyph if it is drawable: not a control, not a surrogate, and
 * its bitmap differs from every glyph already placed (so of two identical glyphs the first in atlas
 * order keeps it and the other is escaped, and decoding is never ambiguous). Space maps to glyph 0.
 */
export function buildAtlas(font: BdfFont, markArt: readonly string[]): Uint8Array {
  const { width: cw, height: ch } = font;
  if (cw > 8) throw new RangeError(`cell width ${cw} exceeds 8 pixels, the atlas row is one byte`);
  const full = (1 << cw) - 1;
  const byCodePoint = new Map<number, number[]>();
  for (const g of font.glyphs) byCodePoint.set(g.codePoint, g.rows);

  const key = (rows: readonly number[]): string => rows.join(',');
  const glyphRows: number[][] = [];
  const seen = new Map<string, number>();
  const place = (rows: number[], what: string): void => {
    const k = key(rows);
    const other = seen.get(k);
    if (other !== undefined) throw new Error(`${what} is identical to reserved glyph ${other}`);
    seen.set(k, glyphRows.length);
    glyphRows.push(rows);
  };

  place(new Array<number>(ch).fill(0), 'the blank glyph');
  // Drawn inverted (white on black) like the newline mark: readers did not notice the plain hook
  // (shared/LEGIBILITY.md: wrapped rows "run off the right edge").
  const mark = parseArt(markArt, cw, ch).map((r) => ~r & full);
  for (const g of font.glyphs) {
    if (key(g.rows) === key(mark)) {
      throw new Error(`continuation mark equals the font's glyph for U+${g.codePoint.toString(16)}`);
    }
  }
  place(mark, 'the continuation mark');
  for (const c of ESCAPE_CHARS) {
    const rows = byCodePoint.get(c.charCodeAt(0));
    if (!rows) throw new Error(`font lacks '${c}', needed to spell escapes`);
    place(
      rows.map((r) => ~r & full),
      `inverted '${c}'`,
    );
  }

  // The newline mark borrows the font's pilcrow, which readers know as "end of line".
  const usable = (rows: number[] | undefined): rows is number[] =>
    rows !== undefined && rows.some((r) => r !== 0) && !seen.has(key(rows));
  const pilcrow = byCodePoint.get(NEWLINE_MARK_CODE_POINT);
  // Inverted (white on black) like an escape, so that a reader cannot take it for a letter at 5 px
  // (readers of the plain pilcrow in small fonts took it for M).
  const newline = usable(pilcrow) ? pilcrow : pilcrowArt(cw, ch);
  place(
    newline.map((r) => ~r & full),
    'the newline mark',
  );
  // The visible space (indentation and row ends in flow pages) borrows the font's middle dot, the
  // "show whitespace" sign of editors; a literal · is then escaped. Fonts without one get a drawn one.
  const dot = byCodePoint.get(SPACE_MARK_CODE_POINT);
  place(usable(dot) ? dot : middleDotArt(cw, ch), 'the space mark');

  const space = byCodePoint.get(0x20);
  if (!space || space.some((r) => r !== 0)) throw new Error('font space (U+0020) is not blank');

  const mapped: [number, number][] = [[0x20, GLYPH_BLANK]];
  for (const cp of atlasOrder([...byCodePoint.keys()])) {
    if (cp === 0x20 || isControl(cp) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) continue;
    const rows = byCodePoint.get(cp)!;
    const k = key(rows);
    if (seen.has(k)) continue; // identical to an earlier glyph: this code point is escaped
    seen.set(k, glyphRows.length);
    mapped.push([cp, glyphRows.length]);
    glyphRows.push(rows);
  }
  if (glyphRows.length > 0x7fff) throw new Error(`too many glyphs (${glyphRows.length})`);

  // Runs of consecutive code points on consecutive glyphs become one range.
  mapped.sort((a, b) => a[0] - b[0]);
  const ranges: [number, number, number][] = [];
  for (const [cp, g] of mapped) {
    const last = ranges[ranges.length - 1];
    if (last && last[0] + last[1] === cp && last[2] + last[1] === g) last[1]++;
    else ranges.push([cp, 1, g]);
  }

  const bytes = new Uint8Array(HEADER_BYTES + ranges.length * RANGE_BYTES + glyphRows.length * ch);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, cw);
  view.setUint8(1, ch);
  view.setUint16(2, 0, true);
  view.setUint32(4, glyphRows.length, true);
  view.setUint32(8, ranges.length, true);
  let at = HEADER_BYTES;
  for (const [first, count, firstGlyph] of ranges) {
    view.setUint32(at, first, true);
    view.setUint32(at + 4, count, true);
    view.setUint32(at + 8, firstGlyph, true);
    at += RANGE_BYTES;
  }
  // Rows stored with the cell's pixels in the most significant bits of the byte.
  for (const rows of glyphRows) for (const r of rows) bytes[at++] = (r << (8 - cw)) & 0xff;
  return bytes;
}

/** Parses the binary layout of §6, checking its structure; throws a RangeError naming the flaw. */
export function decodeAtlas(bytes: Uint8Array): Atlas {
  if (bytes.length < HEADER_BYTES) {
    throw new RangeError(`atlas: expected at least ${HEADER_BYTES} bytes, found ${bytes.length}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cellWidth = view.getUint8(0);
  const cellHeight = view.getUint8(1);
  const glyphCount = view.getUint32(4, true);
  const rangeCount = view.getUint32(8, true);
  const expected = HEADER_BYTES + rangeCount * RANGE_BYTES + glyphCount * cellHeight;
  if (cellWidth < 1 || cellWidth > 8 || cellHeight < 1 || bytes.length !== expected) {
    throw new RangeError(
      `atlas: header says ${cellWidth}x${cellHeight}, ${glyphCount} glyphs, ${rangeCount} ranges ` +
        `(${expected} bytes), found ${bytes.length} bytes`,
    );
  }
  const ranges = new Uint32Array(rangeCount * 3);
  const bmp = new Int16Array(0x10000).fill(-1);
  const codePoints = new Int32Array(glyphCount).fill(-1);
  let previousEnd = 0;
  for (let i = 0; i < rangeCount; i++) {
    const first = view.getUint32(HEADER_BYTES + i * RANGE_BYTES, true);
    const count = view.getUint32(HEADER_BYTES + i * RANGE_BYTES + 4, true);
    const firstGlyph = view.getUint32(HEADER_BYTES + i * RANGE_BYTES + 8, true);
    const bad =
      first < previousEnd ||
      count === 0 ||
      first + count > 0x110000 ||
      firstGlyph + count > glyphCount ||
      (firstGlyph < FIRST_DRAWABLE && (firstGlyph !== GLYPH_BLANK || count !== 1));
    if (bad)
      throw new RangeError(`atlas: range ${i} (U+${first.toString(16)}, ${count}, ${firstGlyph}) is invalid`);
    ranges.set([first, count, firstGlyph], i * 3);
    for (let k = 0; k < count; k++) {
      if (first + k < 0x10000) bmp[first + k] = firstGlyph + k;
      codePoints[firstGlyph + k] = first + k;
    }
    previousEnd = first + count;
  }
  const glyphs = bytes.subarray(HEADER_BYTES + rangeCount * RANGE_BYTES);
  return { cellWidth, cellHeight, glyphCount, ranges, glyphs, bmp, codePoints, bytes };
}

/** The glyph drawing `codePoint`, or -1 when it is escaped (§3). */
export function glyphOf(atlas: Atlas, codePoint: number): number {
  if (codePoint < 0x10000) return atlas.bmp[codePoint] ?? -1;
  const r = atlas.ranges;
  let lo = 0;
  let hi = r.length / 3 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const first = r[mid * 3]!;
    if (codePoint < first) hi = mid - 1;
    else if (codePoint >= first + r[mid * 3 + 1]!) lo = mid + 1;
    else return r[mid * 3 + 2]! + codePoint - first;
  }
  return -1;
}

/**
 * The atlas of a spaced cell (docs/renderer.md §2): every glyph gains `x` blank columns on its right and
 * `y` blank rows below. The inverted glyphs (continuation mark, escape characters, newline mark) gain ink there
 * instead, so an escape stays one solid run and the mark one solid cell. Bitmaps stay pairwise distinct (the padding is the same for all plain glyphs and the opposite for
 * all inverted ones), so decoding by bitmap still works. Pure: the binary layout in, a new one out.
 */
export function spaceAtlas(bytes: Uint8Array, x: number, y: number): Uint8Array {
  if (x === 0 && y === 0) return bytes;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cw0 = view.getUint8(0);
  const ch0 = view.getUint8(1);
  const glyphCount = view.getUint32(4, true);
  const head = HEADER_BYTES + view.getUint32(8, true) * RANGE_BYTES;
  if (bytes.length !== head + glyphCount * ch0) {
    throw new RangeError(`atlas: expected ${head + glyphCount * ch0} bytes, found ${bytes.length}`);
  }
  const cw = cw0 + x;
  const ch = ch0 + y;
  if (cw > 8) throw new RangeError(`spaced cell is ${cw} pixels wide; at most 8 are supported`);
  const out = new Uint8Array(head + glyphCount * ch);
  out.set(bytes.subarray(0, head));
  out[0] = cw;
  out[1] = ch;
  // Ink in the new columns: the x bits right of the glyph's own, MSB-aligned like every row.
  const padBits = ((1 << x) - 1) << (8 - cw);
  const fullRow = (0xff << (8 - cw)) & 0xff;
  for (let g = 0; g < glyphCount; g++) {
    const inverted = g === GLYPH_MARK || (g >= GLYPH_HEX && g <= GLYPH_NEWLINE);
    const from = head + g * ch0;
    const at = head + g * ch;
    for (let r = 0; r < ch0; r++) out[at + r] = inverted ? bytes[from + r]! | padBits : bytes[from + r]!;
    for (let r = ch0; r < ch; r++) out[at + r] = inverted ? fullRow : 0;
  }
  return out;
}

/** Base64 of bytes without Node's Buffer (edge-safe). */
export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

export function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
