// glyphfold's WebAssembly core: text in linear memory → pages of 1-bit PNG scanlines.
// Only numbers cross the boundary. The JS glue (src/render/wasm.ts) writes the atlas and the text
// straight into memory and reads each page through a Uint8Array view (rebuilt after memory.grow).
// Call order: atlasBuffer → loadAtlas (once per cell+scale) → prepare → begin → nextPage… (per render).
import {
  buildTables,
  ch,
  cellW,
  GLYPH_BLANK,
  GLYPH_MARK,
  GLYPH_NEWLINE,
  GLYPH_SPACE,
  lookup,
  scale,
  setAtlasLength,
  tablesEnd,
} from './atlas';
import { blitRow, cellPtr, clearFrom, pagePtr, setPage, stride } from './blit';
import { align16, ensureMemory } from './memory';
import { learnLiteralCode, setDeflateWork, workBytes } from './deflate';
import { setTables, TABLE_BYTES, writePng } from './png';
import * as text from './text';

let cols: u32 = 0;
let rows: u32 = 0;
let width: u32 = 0;
let height: u32 = 0;
let inputCap: u32 = 0;
let inputPtr: usize = 0;
let totalChars: f64 = 0;
let done: bool = true;
let pngPtr: usize = 0;
/** Layout 'flow' (docs/renderer.md §4): rows filled completely, line breaks drawn as a mark. */
let flow: bool = false;
/** Flow: a line ended with a newline whose mark is not drawn yet (it may open the next row or page). */
let pendingNewline: bool = false;
/** Flow: no visible cell since the last newline mark (or the text's start): blanks are indentation. */
let indent: bool = true;

/** JS, once per cell: reserves `length` bytes for the raw atlas and returns where to write them. */
export function atlasBuffer(length: u32): usize {
  return setAtlasLength(length);
}

/** JS, once per cell+scale, after writing the atlas: builds the lookup and glyph tables.
 *  Returns the glyph count, or a negative code (bad atlas, bad scale, out of memory). */
export function loadAtlas(length: u32, s: u32): i32 {
  cols = 0;
  sampleW = 0;
  done = true;
  return buildTables(length, s);
}

/** JS, once per render: lays out a page of `w`×`h` pixels and an input area of `capacity` bytes
 *  after the tables, growing memory if needed. Returns where JS writes the text, or 0 if the shape
 *  holds fewer than 2×2 cells, no atlas is loaded, or memory cannot grow. */
export function prepare(w: u32, h: u32, capacity: u32): usize {
  done = true;
  cols = 0;
  if (cellW == 0) return 0;
  const c = w / cellW;
  const r = h / (ch * scale);
  if (c < 2 || r < 2) return 0;
  const rowBytes = 1 + ((w + 7) >> 3);
  const page = tablesEnd;
  const cells = align16(page + <usize>rowBytes * h);
  const encTables = align16(cells + ((<usize>(c + 16)) << 1));
  // Worst case of the PNG: 9 bits per literal, plus stored-block headers and the chunks.
  const pageBytes = <usize>rowBytes * h;
  const png = align16(encTables + TABLE_BYTES);
  // The page deflate writes at most 16 bits per byte (a literal ≤ 14, a 3-byte match ≤ 47) before it
  // falls back to stored blocks.
  const work = align16(png + 2 * pageBytes + 4096);
  const input = align16(work + workBytes(rowBytes, h, ch * scale));
  if (!ensureMemory(input + <usize>capacity + 32)) return 0;
  setDeflateWork(work, rowBytes, h, ch * scale);
  setPage(page, rowBytes, h, cells);
  setTables(encTables);
  pngPtr = png;
  if (w != sampleW || h != sampleH) learnSample(c, r, rowBytes, h, page, png);
  sampleW = w;
  sampleH = h;
  cols = c;
  rows = r;
  width = w;
  height = h;
  inputCap = capacity;
  inputPtr = input;
  return input;
}

/** The shape whose literal/length code is learnt (0: none since the atlas was loaded). */
let sampleW: u32 = 0;
let sampleH: u32 = 0;

/** Draws a sample page — pseudo-random cells from a fixed seed: 1 in 8 blank, 1 in 16 of `!`–`@`
 *  (top bits 0010), the rest `a`–`z` — and learns the page deflate's literal/length codes from it:
 *  the same codes for every page of this shape and atlas, whatever the text (docs/renderer.md §5). */
function learnSample(c: u32, r: u32, rowBytes: u32, h: u32, page: usize, png: usize): void {
  let x: u32 = 1;
  for (let ri: u32 = 0; ri < r; ri++) {
    for (let j: u32 = 0; j < c; j++) {
      x = x * 1103515245 + 12345;
      const k = x >> 16;
      const b = x >> 29 == 0 ? 0x20 : x >> 28 == 2 ? 0x21 + (k & 31) : 0x61 + (k % 26);
      store<u16>(cellPtr + ((<usize>j) << 1), <u16>(b == 0x20 ? GLYPH_BLANK : lookup(b)));
    }
    blitRow(ri, c);
  }
  clearFrom(r * ch * scale);
  learnLiteralCode(page, <usize>rowBytes * h, png, rowBytes, rowBytes * ch * scale);
}

/** JS, once per render, after writing `length` units of text at prepare()'s pointer (UTF-8 bytes,
 *  or UTF-16 code units when `wide` is 1), with `layout` 0 = lines, 1 = flow. Returns 0, or -1 if
 *  it does not fit the reserved area. */
export function begin(length: u32, wide: u32, layout: u32): i32 {
  done = true;
  if (cols == 0) return -1;
  if ((wide != 0 ? <u64>length * 2 : <u64>length) > <u64>inputCap) return -1;
  text.resetText(inputPtr, length, wide != 0);
  totalChars = 0;
  flow = layout == 1;
  pendingNewline = false;
  indent = true;
  done = false;
  return 0;
}

/** JS, once per page: lays out (and draws, if `draw` is 1; 2 lays out cells only) the next page. Returns the characters of
 *  the normalized text it holds (newlines included), or -1 when there are no more pages. The
 *  scanlines are at pagePtr(), pageLength() bytes, until the next call. */
export function nextPage(draw: u32): i32 {
  if (done) return -1;
  text.charsOut = 0;
  let ri: u32 = 0;
  // draw 2: lay out into the cell buffer (so flow's space marks keep their state) but draw nothing,
  // to skip to a later page with the same layout state as drawing every page.
  const out = draw != 0 ? cellPtr : 0;
  const blit = draw == 1;
  if (flow) ri = flowRows(out, blit);
  while (!flow && ri < rows) {
    if (!text.lineActive) {
      if (text.pos >= text.effEnd) break;
      text.startLine();
    }
    const rest = text.lineN - text.lineK;
    let m: u32;
    if (rest > cols) {
      // Soft wrap: cols − 1 cells and the continuation mark (§4).
      text.takeCells(out, cols - 1);
      if (out != 0) store<u16>(out + ((<usize>(cols - 1)) << 1), <u16>GLYPH_MARK);
      m = cols;
    } else {
      text.takeCells(out, rest);
      m = rest;
      if (text.lineHasNL) text.charsOut++;
      text.lineActive = false;
      text.pos = text.lineNext;
    }
    if (blit) blitRow(ri, m);
    ri++;
  }
  if (ri == 0) {
    done = true;
    return -1;
  }
  if (blit) clearFrom(ri * ch * scale);
  totalChars += <f64>text.charsOut;
  return <i32>text.charsOut;
}

/** Lays out (and draws, when `out` is not 0) the rows of one page in the flow layout: each row takes
 *  cells from as many lines as fit, a line break being one newline-mark cell. Returns the rows. */
function flowRows(out: usize, blit: bool): u32 {
  let ri: u32 = 0;
  while (ri < rows) {
    let m: u32 = 0;
    while (m < cols) {
      if (!text.lineActive) {
        if (pendingNewline) {
          if (out != 0) store<u16>(out + ((<usize>m) << 1), <u16>GLYPH_NEWLINE);
          m++;
          text.charsOut++;
          pendingNewline = false;
          continue;
        }
        if (text.pos >= text.effEnd) break;
        text.startLine();
      }
      const rest = text.lineN - text.lineK;
      const take = rest < cols - m ? rest : cols - m;
      text.takeCells(out != 0 ? out + ((<usize>m) << 1) : 0, take);
      m += take;
      if (text.lineK == text.lineN) {
        text.lineActive = false;
        text.pos = text.lineNext;
        pendingNewline = text.lineHasNL;
      }
    }
    if (m == 0) break;
    if (out != 0) {
      markSpaces(out, m);
      if (blit) blitRow(ri, m);
    }
    ri++;
  }
  return ri;
}

/** Flow (docs/renderer.md §4): a space a reader could not count is drawn as the visible space mark:
 *  indentation, a run of two or more spaces, and the blank runs that start a row or end a full row
 *  (so a run a row end splits is marked on both sides). A single space between two visible cells of a
 *  row stays blank, as between words. */
function markSpaces(out: usize, m: u32): void {
  let i: u32 = 0;
  while (i < m) {
    const g = <u32>load<u16>(out + ((<usize>i) << 1));
    if (g != GLYPH_BLANK) {
      if (g == GLYPH_NEWLINE) indent = true;
      else indent = false;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < m && <u32>load<u16>(out + ((<usize>j) << 1)) == GLYPH_BLANK) j++;
    if (indent || j - i >= 2 || i == 0 || (j == m && m == cols)) {
      for (let k = i; k < j; k++) store<u16>(out + ((<usize>k) << 1), <u16>GLYPH_SPACE);
    }
    i = j;
  }
}

/** A saved layout state: the text's (text.saveState) and the flow layout's own. */
const STATE_INTS: u32 = text.TEXT_STATE_INTS + 2;
const statePtr = memory.data(<i32>STATE_INTS * 4, 16);

/** JS, between pages: writes the layout state before the next page at the returned pointer
 *  (layoutStateInts() i32 values). restoreLayout() on a core holding the same text (this one or
 *  another instance) continues from there: the pages after it come out byte for byte as in one run. */
export function saveLayout(): usize {
  text.saveState(statePtr);
  const at = statePtr + ((<usize>text.TEXT_STATE_INTS) << 2);
  store<u32>(at, (flow ? 1 : 0) | (pendingNewline ? 2 : 0) | (indent ? 4 : 0));
  store<u32>(at, done ? 1 : 0, 4);
  return statePtr;
}
export function layoutStateInts(): u32 {
  return STATE_INTS;
}

/** JS, after begin() and writing a state saveLayout() returned at layoutStatePointer(): the next
 *  page is the one that followed that state. Returns 0, or -1 (nothing changed) if the state was
 *  saved for another text, length, encoding or layout. */
export function restoreLayout(): i32 {
  if (cols == 0) return -1;
  const at = statePtr + ((<usize>text.TEXT_STATE_INTS) << 2);
  const bits = load<u32>(at);
  if ((bits & 1) != (flow ? 1 : 0) || bits > 7) return -1;
  if (!text.restoreState(statePtr)) return -1;
  pendingNewline = (bits & 2) != 0;
  indent = (bits & 4) != 0;
  done = load<u32>(at, 4) != 0;
  totalChars = 0;
  return 0;
}
export function layoutStatePointer(): usize {
  return statePtr;
}

/** JS, once per render: where the page scanlines are, and how many bytes (H × stride). */
export function pagePointer(): usize {
  return pagePtr;
}
export function pageLength(): u32 {
  return stride * height;
}
/** JS, after the last page: escapes drawn, and characters laid out, over the whole text. */
export function escapeCount(): u32 {
  return text.escapes;
}
export function charCount(): f64 {
  return totalChars;
}
/** JS, once per render: the grid (cols × rows) of the prepared shape. */
export function gridCols(): u32 {
  return cols;
}
export function gridRows(): u32 {
  return rows;
}
export function pageWidth(): u32 {
  return width;
}

/** JS, once per page in the core-encoded modes: encodes the current page as a whole PNG at
 *  pngPointer() and returns its length. `mode` 0 = stored deflate, 1 = fixed-Huffman runs,
 *  2 = the page deflate (assembly/deflate.ts). */
export function encodePage(mode: u32): u32 {
  return <u32>writePng(pngPtr, mode, width, stride * ch * scale);
}
export function pngPointer(): usize {
  return pngPtr;
}
