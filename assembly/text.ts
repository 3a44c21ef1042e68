// The text in WASM memory and its lines, normalized on the fly (docs/renderer.md §1) without copying:
// a line is scanned once to count its cells (pass 1), then its cells are produced row by row (pass 2).
// Lines of printable ASCII (most text) skip both decoders: their bytes are their cells.
import {
  asciiDirect,
  asciiOffset,
  ESCAPE,
  GLYPH_BLANK,
  GLYPH_HEX0,
  GLYPH_PLUS,
  GLYPH_U,
  lookup,
  lutPtr,
} from './atlas';

export let inPtr: usize = 0;
/** Input length in units (bytes for UTF-8, code units for UTF-16). */
export let inLen: u32 = 0;
export let utf16: bool = false;
/** End of the text after dropping trailing spaces, tabs and newlines (§1 rules 3–4). */
export let effEnd: u32 = 0;
/** Where the next line starts. */
export let pos: u32 = 0;

// The current line.
export let lineActive: bool = false;
export let lineSimple: bool = false;
export let lineStart: u32 = 0;
/** Cells of the line after trailing spaces are dropped, and how many have been emitted. */
export let lineN: u32 = 0;
export let lineK: u32 = 0;
/** Whether a newline ends the line (it counts as one character of the page holding its last row). */
export let lineHasNL: bool = false;
export let lineNext: u32 = 0;

// Pass-2 decoder state for a general line.
let dpos: u32 = 0;
let dcol: u32 = 0;
let dsp: u32 = 0;
let escCp: u32 = 0;
let escIdx: u32 = 0;
let escLen: u32 = 0;
let decLen: u32 = 0;

export let escapes: u32 = 0;
/** Characters (code points of the normalized text) produced since the caller last reset it. */
export let charsOut: u32 = 0;

export function resetText(ptr: usize, len: u32, wide: bool): void {
  inPtr = ptr;
  inLen = len;
  utf16 = wide;
  let e = len;
  while (e > 0) {
    const u = unit(e - 1);
    if (u != 0x20 && u != 0x09 && u != 0x0a && u != 0x0d) break;
    e--;
  }
  effEnd = e;
  pos = 0;
  lineActive = false;
  escapes = 0;
  charsOut = 0;
}

function unit(i: u32): u32 {
  return utf16 ? <u32>load<u16>(inPtr + ((<usize>i) << 1)) : <u32>load<u8>(inPtr + <usize>i);
}

/** Decodes the code point at unit `i` (sets decLen). UTF-8 comes from TextEncoder, so it is well
 *  formed; UTF-16 may hold lone surrogates, which decode to themselves (and are escaped). */
function decode(i: u32): u32 {
  if (utf16) {
    const u = <u32>load<u16>(inPtr + ((<usize>i) << 1));
    if (u >= 0xd800 && u < 0xdc00 && i + 1 < effEnd) {
      const v = <u32>load<u16>(inPtr + ((<usize>(i + 1)) << 1));
      if (v >= 0xdc00 && v < 0xe000) {
        decLen = 2;
        return 0x10000 + ((u - 0xd800) << 10) + (v - 0xdc00);
      }
    }
    decLen = 1;
    return u;
  }
  const p = inPtr + <usize>i;
  const b0 = <u32>load<u8>(p);
  if (b0 < 0x80) {
    decLen = 1;
    return b0;
  }
  if (b0 < 0xe0) {
    decLen = 2;
    return ((b0 & 0x1f) << 6) | ((<u32>load<u8>(p, 1)) & 0x3f);
  }
  if (b0 < 0xf0) {
    decLen = 3;
    return ((b0 & 0x0f) << 12) | (((<u32>load<u8>(p, 1)) & 0x3f) << 6) | ((<u32>load<u8>(p, 2)) & 0x3f);
  }
  decLen = 4;
  return (
    ((b0 & 0x07) << 18) |
    (((<u32>load<u8>(p, 1)) & 0x3f) << 12) |
    (((<u32>load<u8>(p, 2)) & 0x3f) << 6) |
    ((<u32>load<u8>(p, 3)) & 0x3f)
  );
}

/** Hex digits of an escape: at least 4 (§3). */
function hexDigits(cp: u32): u32 {
  return cp > 0xfffff ? 6 : cp > 0xffff ? 5 : 4;
}

/** First unit at or after `i` that is not printable ASCII (0x20–0x7E), or effEnd. */
function scanPlain(i: u32): u32 {
  if (!utf16) {
    // 16 bytes per step; the input region has 32 bytes of padding, and the result is clamped.
    const lo = i8x16.splat(0x20);
    const span = i8x16.splat(0x5e);
    while (i < effEnd) {
      const v = v128.load(inPtr + <usize>i);
      const mask = i8x16.bitmask(i8x16.gt_u(i8x16.sub(v, lo), span));
      if (mask != 0) {
        i += <u32>ctz(mask);
        break;
      }
      i += 16;
    }
    return i < effEnd ? i : effEnd;
  }
  while (i < effEnd) {
    const u = unit(i);
    if (u < 0x20 || u > 0x7e) break;
    i++;
  }
  return i;
}

/** Starts the line at `pos`: finds its end and counts its cells (pass 1). */
export function startLine(): void {
  const start = pos;
  lineStart = start;
  lineK = 0;
  let end = asciiDirect ? scanPlain(start) : start;
  lineSimple = asciiDirect && (end == effEnd || isBreak(unit(end)));
  if (lineSimple) {
    let e = end;
    while (e > start && unit(e - 1) == 0x20) e--;
    lineN = e - start;
  }
  if (!lineSimple) {
    // Pass 1 over a general line: tabs, escapes and trailing spaces decide the cell count.
    let i = start;
    let cells: u32 = 0;
    let last: u32 = 0;
    let col: u32 = 0;
    while (i < effEnd) {
      const cp = decode(i);
      if (cp == 0x0a || cp == 0x0d) break;
      i += decLen;
      if (cp == 0x20) {
        cells++;
        col++;
      } else if (cp == 0x09) {
        const k = 4 - (col & 3);
        cells += k;
        col += k;
      } else {
        col++;
        cells += lookup(cp) == ESCAPE ? 2 + hexDigits(cp) : 1;
        last = cells;
      }
    }
    end = i;
    lineN = last;
    dpos = start;
    dcol = 0;
    dsp = 0;
    escIdx = 0;
    escLen = 0;
  }
  lineHasNL = end < effEnd;
  lineNext = end;
  if (lineHasNL) {
    lineNext = end + 1;
    if (unit(end) == 0x0d && end + 1 < effEnd && unit(end + 1) == 0x0a) lineNext = end + 2;
  }
  lineActive = true;
}

function isBreak(u: u32): bool {
  return u == 0x0a || u == 0x0d;
}

/** Writes the next `take` cells of the current line as u16 glyph indices at `out` (or only counts
 *  them when `out` is 0), adding the characters they complete to charsOut. */
export function takeCells(out: usize, take: u32): void {
  if (lineSimple) {
    const src = lineStart + lineK;
    if (out != 0) {
      if (utf16) {
        for (let j: u32 = 0; j < take; j++) {
          store<u16>(out + ((<usize>j) << 1), load<u16>(lutPtr + ((<usize>unit(src + j)) << 1)));
        }
      } else {
        const p = inPtr + <usize>src;
        let j: usize = 0;
        if (asciiOffset >= 0 && GLYPH_BLANK == 0) {
          // A simple line holds only bytes 0x20–0x7E: glyph = byte + offset, space → 0 (the blank
          // cell), sixteen at a time; the stores stay within the `take` cells.
          const offset = i16x8.splat(<i16>asciiOffset);
          const space = i16x8.splat(0x20);
          for (; j + 16 <= <usize>take; j += 16) {
            const v = v128.load(p + j);
            const lo = i16x8.extend_low_i8x16_u(v);
            const hi = i16x8.extend_high_i8x16_u(v);
            v128.store(out + (j << 1), v128.and(i16x8.add(lo, offset), i16x8.ne(lo, space)));
            v128.store(out + (j << 1), v128.and(i16x8.add(hi, offset), i16x8.ne(hi, space)), 16);
          }
        }
        for (; j < <usize>take; j++) {
          store<u16>(out + (j << 1), load<u16>(lutPtr + ((<usize>load<u8>(p + j)) << 1)));
        }
      }
    }
    charsOut += take;
  } else {
    for (let j: u32 = 0; j < take; j++) {
      const g = nextCell();
      if (out != 0) store<u16>(out + ((<usize>j) << 1), <u16>g);
    }
  }
  lineK += take;
}

/** Pass 2: the next cell of a general line. Only called for cells below lineN, so it never meets
 *  the line's end or its trailing spaces. */
function nextCell(): u32 {
  if (escIdx < escLen) {
    const i = escIdx++;
    if (i == 1) return GLYPH_PLUS;
    return GLYPH_HEX0 + ((escCp >> ((escLen - 1 - i) << 2)) & 0xf);
  }
  if (dsp > 0) {
    dsp--;
    charsOut++;
    return 0;
  }
  const cp = decode(dpos);
  dpos += decLen;
  charsOut++;
  if (cp == 0x20) {
    dcol++;
    return 0;
  }
  if (cp == 0x09) {
    const k = 4 - (dcol & 3);
    dcol += k;
    dsp = k - 1;
    return 0;
  }
  dcol++;
  const g = lookup(cp);
  if (g != ESCAPE) return g;
  escapes++;
  escCp = cp;
  escLen = 2 + hexDigits(cp);
  escIdx = 1;
  return GLYPH_U;
}

/** Numbers in a saved layout state (saveState/restoreState; index.ts adds its own after these). */
export const TEXT_STATE_INTS: u32 = 17;

/** Writes everything the layout reads between pages (where the text and the current line stand,
 *  the pass-2 decoder, escapes so far) at `p`, TEXT_STATE_INTS i32 values. */
export function saveState(p: usize): void {
  store<u32>(p, inLen);
  store<u32>(p, effEnd, 4);
  store<u32>(p, utf16 ? 1 : 0, 8);
  store<u32>(p, pos, 12);
  store<u32>(p, lineActive ? 1 : 0, 16);
  store<u32>(p, lineSimple ? 1 : 0, 20);
  store<u32>(p, lineStart, 24);
  store<u32>(p, lineN, 28);
  store<u32>(p, lineK, 32);
  store<u32>(p, lineHasNL ? 1 : 0, 36);
  store<u32>(p, lineNext, 40);
  store<u32>(p, dpos, 44);
  store<u32>(p, dcol, 48);
  store<u32>(p, dsp, 52);
  store<u32>(p, escCp, 56);
  store<u32>(p, (escIdx & 0xffff) | (escLen << 16), 60);
  store<u32>(p, escapes, 64);
}

/** Restores a state saveState() wrote for this text (same length and encoding). Returns false, and
 *  changes nothing, if it was saved for another text or does not hold together. */
export function restoreState(p: usize): bool {
  if (load<u32>(p) != inLen || load<u32>(p, 4) != effEnd || load<u32>(p, 8) != (utf16 ? 1 : 0)) return false;
  const sPos = load<u32>(p, 12);
  const sStart = load<u32>(p, 24);
  const sNext = load<u32>(p, 40);
  const sDpos = load<u32>(p, 44);
  const sN = load<u32>(p, 28);
  const sK = load<u32>(p, 32);
  const esc = load<u32>(p, 60);
  // Positions inside the text and in order: a bad state must not read outside the input. The
  // line's fields hold only while a line is active, the decoder's only for a general line.
  const active = load<u32>(p, 16) != 0;
  const simple = load<u32>(p, 20) != 0;
  if (sPos > effEnd) return false;
  if (active && (sStart > sNext || sNext > inLen || sK > sN || (simple && sStart + sN > sNext))) return false;
  if (active && !simple && (sDpos < sStart || sDpos > sNext || (esc & 0xffff) > esc >> 16 || esc >> 16 > 8))
    return false;
  pos = sPos;
  lineActive = active;
  lineSimple = simple;
  lineStart = sStart;
  lineN = sN;
  lineK = sK;
  lineHasNL = load<u32>(p, 36) != 0;
  lineNext = sNext;
  dpos = sDpos;
  dcol = load<u32>(p, 48);
  dsp = load<u32>(p, 52);
  escCp = load<u32>(p, 56);
  escIdx = esc & 0xffff;
  escLen = esc >> 16;
  escapes = load<u32>(p, 64);
  charsOut = 0;
  return true;
}
