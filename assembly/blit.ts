// Glyph rows → 1-bit PNG scanlines (docs/renderer.md §5): filter byte 0, pixels MSB first, 1 = white.
import {
  cellW,
  ch,
  glyphCount,
  groupBytes,
  groupEntry,
  groupK,
  groupLane,
  groupPtr,
  quadPtr,
  quads,
  rowsPtr,
  scale,
} from './atlas';

export let pagePtr: usize = 0;
/** Bytes per scanline: the filter byte plus ceil(W / 8). */
export let stride: u32 = 0;
export let pageH: u32 = 0;
/** Glyph indices (u16) of the row being drawn; cols + 1 entries. */
export let cellPtr: usize = 0;

export function setPage(page: usize, rowBytes: u32, h: u32, cells: usize): void {
  pagePtr = page;
  stride = rowBytes;
  pageH = h;
  cellPtr = cells;
}

/** Draws text row `ri` holding `m` cells into the page. */
export function blitRow(ri: u32, m: u32): void {
  const rowH = ch * scale;
  const top = pagePtr + <usize>(ri * rowH) * stride;
  let j0: u32 = 0;
  if (quads || groupK != 0) {
    // Blank cells (glyph 0) pad the row to whole groups, so that the group blitters draw the last
    // cells instead of the per-row loop below (up to 7 cells × every pixel row); the cell buffer
    // holds cols + 16 entries. The quads blitter writes 4 bytes per 8 cells with no bound check: pad
    // only if they stay inside the scanline (blitGroups checks its own bound).
    const k: u32 = quads ? 8 : groupK;
    let padded = (m + k - 1) & ~(k - 1);
    if (quads && padded >> 1 > stride - 1) padded = m & ~7;
    for (let j = m; j < padded; j++) store<u16>(cellPtr + ((<usize>j) << 1), 0);
    j0 = quads ? blitQuads(top, padded) : blitGroups(top, padded);
  }
  const w = cellW;
  const first = <usize>((j0 * w) >> 3); // j0 cells end on a byte boundary
  for (let y: u32 = 0; y < ch; y++) {
    const line = top + <usize>(y * scale) * stride;
    store<u8>(line, 0);
    let out = line + 1 + first;
    // Cells enter a 64-bit accumulator; every 32 bits leave as one big-endian store (ink 1 → white 1).
    let acc: u64 = 0;
    let nb: u32 = 0;
    const rows = rowsPtr + ((<usize>y) << 2);
    const rowStep = (<usize>ch) << 2;
    for (let j = j0; j < m; j++) {
      const g = <usize>load<u16>(cellPtr + ((<usize>j) << 1));
      acc = (acc << w) | (<u64>load<u32>(rows + g * rowStep));
      nb += w;
      if (nb >= 32) {
        nb -= 32;
        store<u32>(out, bswap<u32>(~(<u32>(acc >> nb))));
        out += 4;
      }
    }
    if (nb > 0) {
      // Left-align the last bits; the zero bits below them become white padding.
      const v = ~(<u32>(acc << (32 - nb)));
      const n = (nb + 7) >> 3;
      for (let b: u32 = 0; b < n; b++) store<u8>(out + b, <u8>(v >> (24 - (b << 3))));
      out += n;
    }
    fillWhite(out, line + stride);
    for (let k: u32 = 1; k < scale; k++) memory.copy(line + <usize>(k * stride), line, stride);
  }
}

/** 4x6 at scale 1: eight cells become one u32 per pixel row with eight v128 loads, six ANDs and two
 *  shuffles, instead of 48 shift-or steps. Table entry (p, g) holds glyph g's six rows pre-shifted to
 *  position p of a 4-cell (16-px) group, two bytes per row, inverted (1 = white): a group is the AND
 *  of its four entries, and two groups interleave into rows of four bytes. Returns the cells drawn
 *  (a multiple of 8); blitRow draws the rest and fills the filter bytes and the right margin. */
function blitQuads(top: usize, m: u32): u32 {
  const s = <usize>stride;
  const q1 = quadPtr + ((<usize>glyphCount) << 4);
  const q2 = q1 + ((<usize>glyphCount) << 4);
  const q3 = q2 + ((<usize>glyphCount) << 4);
  const q0 = quadPtr;
  let j: u32 = 0;
  let out = top + 1;
  while (j + 8 <= m) {
    // The cells' indices come in as scalar loads with immediate offsets: cheaper than lane
    // extracts from one vector load.
    const c = cellPtr + ((<usize>j) << 1);
    const a = v128.and(
      v128.and(v128.load(q0 + ((<usize>load<u16>(c)) << 4)), v128.load(q1 + ((<usize>load<u16>(c, 2)) << 4))),
      v128.and(
        v128.load(q2 + ((<usize>load<u16>(c, 4)) << 4)),
        v128.load(q3 + ((<usize>load<u16>(c, 6)) << 4)),
      ),
    );
    const b = v128.and(
      v128.and(
        v128.load(q0 + ((<usize>load<u16>(c, 8)) << 4)),
        v128.load(q1 + ((<usize>load<u16>(c, 10)) << 4)),
      ),
      v128.and(
        v128.load(q2 + ((<usize>load<u16>(c, 12)) << 4)),
        v128.load(q3 + ((<usize>load<u16>(c, 14)) << 4)),
      ),
    );
    const lo = i8x16.shuffle(a, b, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
    const hi = i8x16.shuffle(a, b, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
    v128.store32_lane(out, lo, 0);
    v128.store32_lane(out + s, lo, 1);
    v128.store32_lane(out + 2 * s, lo, 2);
    v128.store32_lane(out + 3 * s, lo, 3);
    v128.store32_lane(out + 4 * s, hi, 0);
    v128.store32_lane(out + 5 * s, hi, 1);
    out += 4;
    j += 8;
  }
  return j;
}

/** Any other cell with a group table (atlas.ts): per group of groupK cells, each pixel row is the AND
 *  of the cells' pre-placed entries, written with one lane store. Returns the cells drawn (a multiple
 *  of groupK); blitRow draws the rest, the filter bytes, the right margin and the scaled copies. */
function blitGroups(top: usize, m: u32): u32 {
  const k = groupK;
  if (k == 4 && groupLane == 4) return blitGroups4(top, m);
  const e = <usize>groupEntry;
  const s = <usize>stride;
  const rowStep = s * <usize>scale;
  const glyphs = <usize>glyphCount;
  const lane = groupLane;
  // A lane store writes `lane` bytes from the group's first byte: stay inside the scanline's pixels.
  const lastByte = s - 1;
  let j: u32 = 0;
  let at: usize = 0; // byte offset of the group in the scanline's pixels
  while (j + k <= m && at + <usize>lane <= lastByte) {
    const cells = cellPtr + ((<usize>j) << 1);
    // Entry addresses of the group's cells, read once per group (k is 2, 4 or 8: atlas.ts).
    const a0 = groupPtr + <usize>load<u16>(cells) * e;
    const a1 = groupPtr + (glyphs + <usize>load<u16>(cells, 2)) * e;
    let a2: usize = 0;
    let a3: usize = 0;
    let a4: usize = 0;
    let a5: usize = 0;
    let a6: usize = 0;
    let a7: usize = 0;
    if (k >= 4) {
      a2 = groupPtr + (2 * glyphs + <usize>load<u16>(cells, 4)) * e;
      a3 = groupPtr + (3 * glyphs + <usize>load<u16>(cells, 6)) * e;
    }
    if (k >= 8) {
      a4 = groupPtr + (4 * glyphs + <usize>load<u16>(cells, 8)) * e;
      a5 = groupPtr + (5 * glyphs + <usize>load<u16>(cells, 10)) * e;
      a6 = groupPtr + (6 * glyphs + <usize>load<u16>(cells, 12)) * e;
      a7 = groupPtr + (7 * glyphs + <usize>load<u16>(cells, 14)) * e;
    }
    let out = top + 1 + at;
    for (let o: usize = 0; o < e; o += 16) {
      let acc = v128.and(v128.load(a0 + o), v128.load(a1 + o));
      if (k == 4) {
        acc = v128.and(acc, v128.and(v128.load(a2 + o), v128.load(a3 + o)));
      } else if (k == 8) {
        acc = v128.and(
          v128.and(acc, v128.and(v128.load(a2 + o), v128.load(a3 + o))),
          v128.and(
            v128.and(v128.load(a4 + o), v128.load(a5 + o)),
            v128.and(v128.load(a6 + o), v128.load(a7 + o)),
          ),
        );
      }
      if (lane == 4) {
        const y = o >> 2;
        v128.store32_lane(out, acc, 0);
        if (y + 1 < <usize>ch) v128.store32_lane(out + rowStep, acc, 1);
        if (y + 2 < <usize>ch) v128.store32_lane(out + 2 * rowStep, acc, 2);
        if (y + 3 < <usize>ch) v128.store32_lane(out + 3 * rowStep, acc, 3);
        out += 4 * rowStep;
      } else {
        const y = o >> 3;
        v128.store64_lane(out, acc, 0);
        if (y + 1 < <usize>ch) v128.store64_lane(out + rowStep, acc, 1);
        out += 2 * rowStep;
      }
    }
    j += k;
    at += <usize>groupBytes;
  }
  return j;
}

/** blitGroups for the commonest group, four cells in a 4-byte lane (6-px cells: 6x9, 6x10, 6x12…):
 *  the loop-invariant choices taken out, the full vectors stored without row checks. */
function blitGroups4(top: usize, m: u32): u32 {
  const e = <usize>groupEntry;
  const s = <usize>stride;
  const rowStep = s * <usize>scale;
  const row4 = rowStep << 2;
  const glyphs = <usize>glyphCount;
  const full = ((<usize>ch) >> 2) << 4; // bytes of the entry in vectors whose four rows all exist
  const rest = (<usize>ch) & 3; // rows in the last, partial vector
  const lastByte = s - 1;
  const p1 = groupPtr + glyphs * e;
  const p2 = p1 + glyphs * e;
  const p3 = p2 + glyphs * e;
  let j: u32 = 0;
  let at: usize = 0;
  while (j + 4 <= m && at + 4 <= lastByte) {
    const cells = cellPtr + ((<usize>j) << 1);
    const a0 = groupPtr + <usize>load<u16>(cells) * e;
    const a1 = p1 + <usize>load<u16>(cells, 2) * e;
    const a2 = p2 + <usize>load<u16>(cells, 4) * e;
    const a3 = p3 + <usize>load<u16>(cells, 6) * e;
    let out = top + 1 + at;
    let o: usize = 0;
    for (; o < full; o += 16) {
      const acc = v128.and(
        v128.and(v128.load(a0 + o), v128.load(a1 + o)),
        v128.and(v128.load(a2 + o), v128.load(a3 + o)),
      );
      v128.store32_lane(out, acc, 0);
      v128.store32_lane(out + rowStep, acc, 1);
      v128.store32_lane(out + 2 * rowStep, acc, 2);
      v128.store32_lane(out + 3 * rowStep, acc, 3);
      out += row4;
    }
    if (rest != 0) {
      const acc = v128.and(
        v128.and(v128.load(a0 + o), v128.load(a1 + o)),
        v128.and(v128.load(a2 + o), v128.load(a3 + o)),
      );
      v128.store32_lane(out, acc, 0);
      if (rest > 1) v128.store32_lane(out + rowStep, acc, 1);
      if (rest > 2) v128.store32_lane(out + 2 * rowStep, acc, 2);
    }
    j += 4;
    at += <usize>groupBytes;
  }
  return j;
}

/** Paints [p, end) white (0xff) with stores, not memory.fill: the margins right of the text are
 *  short (tens to hundreds of bytes) and there is one per scanline, so the call into the runtime's
 *  fill cost more than the stores. Stores stay inside [p, end): the last ones overlap backwards. */
function fillWhite(p: usize, end: usize): void {
  if (p >= end) return;
  const n = end - p;
  if (n >= 16) {
    const white = i8x16.splat(-1);
    const last = end - 16;
    for (; p < last; p += 16) v128.store(p, white);
    v128.store(last, white);
  } else if (n >= 8) {
    store<u64>(p, -1);
    store<u64>(end - 8, -1);
  } else if (n >= 4) {
    store<u32>(p, -1);
    store<u32>(end - 4, -1);
  } else {
    store<u8>(p, 0xff);
    store<u8>(end - 1, 0xff);
    store<u8>(p + (n >> 1), 0xff);
  }
}

/** Paints scanlines [y, H) white (the rows below the last text row, and the strip under the grid). */
export function clearFrom(y: u32): void {
  for (; y < pageH; y++) {
    const line = pagePtr + <usize>y * stride;
    store<u8>(line, 0);
    memory.fill(line + 1, 0xff, stride - 1);
  }
}
