// The atlas in WASM memory: JS writes the generator's bytes (docs/renderer.md §6) once per cell;
// `loadAtlas` turns them into the tables the hot loops index, pre-expanded for one scale.
import { align16, ensureMemory, heapBase } from './memory';

/** Glyph index meaning "no unique glyph: draw an escape" (glyph counts stay far below it). */
export const ESCAPE: u32 = 0xffff;
/** Reserved glyphs, docs/renderer.md §6. */
export const GLYPH_BLANK: u32 = 0;
export const GLYPH_MARK: u32 = 1;
export const GLYPH_HEX0: u32 = 2; // inverted '0'..'9','A'..'F' are 2..17
export const GLYPH_U: u32 = 18;
export const GLYPH_PLUS: u32 = 19;
export const GLYPH_NEWLINE: u32 = 20; // the flow layout's newline mark
export const GLYPH_SPACE: u32 = 21; // the flow layout's visible space (indentation, row ends)

export let atlasLen: u32 = 0;
export let cw: u32 = 0;
export let ch: u32 = 0;
export let scale: u32 = 0;
/** Cell width in pixels at this scale (cw × scale). */
export let cellW: u32 = 0;
export let glyphCount: u32 = 0;
export let rangeCount: u32 = 0;
export const rangesPtr: usize = heapBase + 12;
export let lutPtr: usize = 0;
export let rowsPtr: usize = 0;
export let quadPtr: usize = 0;
/** First free byte after the tables; the page buffer starts here. */
export let tablesEnd: usize = 0;
/** True when every printable ASCII character has its own glyph: then a line of bytes 0x20–0x7E maps
 *  byte → cell one to one and takes the fast path in layout.ts. */
export let asciiDirect: bool = false;
/** When the glyphs of 0x21–0x7E are consecutive (every atlas so far): glyph = byte + asciiOffset
 *  (mod 2^16), which text.ts takeCells applies to 16 bytes at a time; otherwise -1. */
export let asciiOffset: i32 = -1;
/** True when the 4-px SIMD blitter applies (4x6 at scale 1). */
export let quads: bool = false;
/** The group blitter (blit.ts `blitGroups`) for other cells: `groupK` cells make `groupBytes` whole
 *  bytes of a scanline; each table entry holds a glyph's rows at one position of a group, one lane of
 *  `groupLane` bytes per row, `groupEntry` bytes per entry. groupK = 0 when the cell has no group path. */
export let groupPtr: usize = 0;
export let groupK: u32 = 0;
export let groupLane: u32 = 0;
export let groupBytes: u32 = 0;
export let groupEntry: u32 = 0;

export function setAtlasLength(len: u32): usize {
  atlasLen = 0;
  cw = 0;
  if (!ensureMemory(heapBase + <usize>len)) return 0;
  atlasLen = len;
  return heapBase;
}

/** Validates the raw atlas and builds the tables for `s`. Returns the glyph count, or a negative code. */
export function buildTables(len: u32, s: u32): i32 {
  cw = 0;
  if (len != atlasLen || len < 12) return -1;
  if (s < 1 || s > 4) return -2;
  const w = <u32>load<u8>(heapBase);
  const h = <u32>load<u8>(heapBase, 1);
  const glyphs = load<u32>(heapBase, 4);
  const ranges = load<u32>(heapBase, 8);
  if (w < 1 || w > 8 || h < 1 || h > 32) return -3;
  if (glyphs < 22 || glyphs >= ESCAPE) return -4;
  const glyphRows = rangesPtr + <usize>ranges * 12;
  if (<u64>12 + <u64>ranges * 12 + <u64>glyphs * h > <u64>len) return -5;

  lutPtr = align16(heapBase + len);
  rowsPtr = lutPtr + 0x20000;
  quadPtr = align16(rowsPtr + <usize>glyphs * h * 4);
  const useQuads = w * s == 4 && h == 6;
  groupPtr = align16(quadPtr + (useQuads ? <usize>glyphs * 64 : 0));
  // Group geometry: the fewest cells whose pixels end on a byte boundary, as many of them as fit a
  // 4- or 8-byte lane (one lane store per pixel row and group, instead of a shift per cell and row).
  const cw1 = w * s;
  const k0 = 8 / gcd(cw1, 8);
  const bits0 = k0 * cw1;
  let gk: u32 = 0;
  let lane: u32 = 0;
  if (!useQuads && h <= 16) {
    if (bits0 <= 32) {
      lane = 4;
      gk = k0 * (32 / bits0);
    } else if (bits0 <= 64) {
      lane = 8;
      gk = k0 * (64 / bits0);
    }
    // blitGroups combines 2, 4 or 8 cells; other cells (e.g. 6 px at scale 4) take the shift path.
    if (gk != 2 && gk != 4 && gk != 8) gk = 0;
  }
  const perVector = gk != 0 ? 16 / lane : 1;
  const entry: u32 = gk != 0 ? ((h + perVector - 1) / perVector) << 4 : 0;
  tablesEnd = align16(groupPtr + <usize>gk * glyphs * entry);
  if (!ensureMemory(tablesEnd)) return -6;

  // Code point → glyph for the BMP; astral code points binary-search the ranges (lookup()).
  memory.fill(lutPtr, 0xff, 0x20000);
  for (let r: u32 = 0; r < ranges; r++) {
    const first = load<u32>(rangesPtr + r * 12);
    const count = load<u32>(rangesPtr + r * 12, 4);
    const g0 = load<u32>(rangesPtr + r * 12, 8);
    if (g0 + count > glyphs) return -7;
    for (let i: u32 = 0; i < count && first + i < 0x10000; i++) {
      store<u16>(lutPtr + ((first + i) << 1), <u16>(g0 + i));
    }
  }
  // Space is the blank cell; controls are always escapes (docs/renderer.md §3), whatever the font has.
  for (let c: u32 = 0; c < 0x20; c++) store<u16>(lutPtr + (c << 1), <u16>ESCAPE);
  for (let c: u32 = 0x7f; c < 0xa0; c++) store<u16>(lutPtr + (c << 1), <u16>ESCAPE);
  store<u16>(lutPtr + (0x20 << 1), <u16>GLYPH_BLANK);

  // Glyph rows, each font pixel repeated s times horizontally, right-aligned in a u32.
  for (let g: u32 = 0; g < glyphs; g++) {
    for (let y: u32 = 0; y < h; y++) {
      const bits = (<u32>load<u8>(glyphRows + g * h + y)) >> (8 - w);
      let e: u32 = 0;
      for (let x: i32 = <i32>w - 1; x >= 0; x--) {
        const bit = (bits >> (<u32>x)) & 1;
        for (let k: u32 = 0; k < s; k++) e = (e << 1) | bit;
      }
      store<u32>(rowsPtr + ((g * h + y) << 2), e);
    }
  }

  // 4-px cells: for each position p of a cell inside a 16-px group, a v128 holding the glyph's six
  // rows as two bytes each (row y at bytes 2y, 2y+1), already inverted (1 = white) so that a group
  // is the AND of four loads. blit.ts explains the rest.
  if (useQuads) {
    for (let p: u32 = 0; p < 4; p++) {
      for (let g: u32 = 0; g < glyphs; g++) {
        const q = quadPtr + ((p * glyphs + g) << 4);
        memory.fill(q, 0xff, 16);
        for (let y: u32 = 0; y < 6; y++) {
          const nib = load<u32>(rowsPtr + ((g * h + y) << 2)) & 0xf;
          const shift = (p & 1) == 0 ? 4 : 0;
          store<u8>(q + y * 2 + (p >> 1), <u8>~(nib << shift));
        }
      }
    }
  }

  // Group entries: glyph g's row y placed at cell position p of a group (MSB first, 1 = white after
  // inversion), as the group's bytes in memory order; lane bytes past the group are white, so that a
  // group is the AND of its cells' entries and a lane store may spill white into the next group.
  if (gk != 0) {
    const gBytes = (gk * cw1) >> 3;
    const groupBits = <u64>(gBytes << 3);
    for (let p: u32 = 0; p < gk; p++) {
      for (let g: u32 = 0; g < glyphs; g++) {
        const e = groupPtr + <usize>(p * glyphs + g) * entry;
        memory.fill(e, 0xff, entry);
        for (let y: u32 = 0; y < h; y++) {
          const row = <u64>load<u32>(rowsPtr + ((g * h + y) << 2));
          const placed = row << (groupBits - <u64>((p + 1) * cw1));
          const white = ~placed;
          for (let b: u32 = 0; b < gBytes; b++) {
            store<u8>(e + y * lane + b, <u8>(white >> (groupBits - <u64>((b + 1) << 3))));
          }
        }
      }
    }
    groupBytes = gBytes;
  }
  groupK = gk;
  groupLane = lane;
  groupEntry = entry;

  let direct = true;
  for (let c: u32 = 0x21; c < 0x7f; c++) {
    if (<u32>load<u16>(lutPtr + (c << 1)) == ESCAPE) direct = false;
  }
  asciiDirect = direct;
  const first = <i32>load<u16>(lutPtr + (0x21 << 1));
  let linear = direct;
  for (let c: u32 = 0x22; c < 0x7f; c++) {
    if (<i32>load<u16>(lutPtr + (c << 1)) != first + <i32>(c - 0x21)) linear = false;
  }
  asciiOffset = linear ? (first - 0x21) & 0xffff : -1;
  quads = useQuads;
  cw = w;
  ch = h;
  scale = s;
  cellW = w * s;
  glyphCount = glyphs;
  rangeCount = ranges;
  return <i32>glyphs;
}

function gcd(a: u32, b: u32): u32 {
  while (b != 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** Glyph of a code point, or ESCAPE. */
export function lookup(cp: u32): u32 {
  if (cp < 0x10000) return <u32>load<u16>(lutPtr + (cp << 1));
  return lookupAstral(cp);
}

function lookupAstral(cp: u32): u32 {
  let lo: u32 = 0;
  let hi = rangeCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const first = load<u32>(rangesPtr + mid * 12);
    if (cp < first) {
      hi = mid;
    } else if (cp - first >= load<u32>(rangesPtr + mid * 12, 4)) {
      lo = mid + 1;
    } else {
      return load<u32>(rangesPtr + mid * 12, 8) + (cp - first);
    }
  }
  return ESCAPE;
}
