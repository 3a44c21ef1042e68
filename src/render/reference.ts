/**
 * The TypeScript reference renderer: text → pages of PNG scanlines (docs/renderer.md §4–§5). It is the
 * oracle the WASM core is tested against and the baseline its benchmark is measured against, so it is
 * written to be fast in plain JS: one pass over the UTF-16 text that applies normalize() on the fly
 * (no normalized copy), glyph rows pre-expanded for the scale, one page buffer reused, and pixels
 * packed through a bit accumulator per scanline — no per-pixel calls.
 */
import {
  GLYPH_BLANK,
  GLYPH_HEX,
  GLYPH_MARK,
  GLYPH_NEWLINE,
  GLYPH_PLUS,
  GLYPH_SPACE,
  GLYPH_U,
  glyphOf,
  type Atlas,
} from './atlas.js';
import { atlasFor } from './atlases.js';
import type { CellName } from './cells.js';
import { pageGeometry, type PageGeometry, type PageShape } from './geometry.js';
import { TAB_WIDTH } from './normalize.js';
import { variantOf, type Layout as LayoutKind, type Spacing, type Variant } from './variant.js';

export interface LayoutOptions {
  shape: PageShape;
  cell?: CellName;
  scale?: number;
  /** Blank font pixels added right of and below every glyph (docs/renderer.md §2). */
  spacing?: Partial<Spacing>;
  /** 'lines' (default) or 'flow' (docs/renderer.md §4). */
  layout?: LayoutKind;
  /** A variant id (`6x10+r1+flow`) or object; wins over cell, scale, spacing and layout. */
  variant?: string | Variant;
}

/** The page geometry of layout options (variant resolved, everything validated). */
export function layoutGeometry(options: LayoutOptions): PageGeometry {
  const v = variantOf(options);
  return pageGeometry(options.shape, v.cell, v.scale, v.spacing, v.layout);
}

/** One page of scanlines, as §5 defines them: the exact input of the PNG's zlib stream. */
export interface ScanlinePage {
  /** 0-based page number. */
  index: number;
  width: number;
  height: number;
  /** Bytes per scanline (filter byte included). */
  stride: number;
  /** Code points of the normalized text on this page (a `\n` counts on the page of the line it ends). */
  chars: number;
  /** Escaped code points whose escape starts on this page. */
  escapes: number;
  /** `height × stride` bytes. Reused: valid until the iterator advances (copy it to keep it). */
  scanlines: Uint8Array;
}

const rowTables = new WeakMap<Atlas, Map<number, Uint32Array>>();

/**
 * `table[glyph * ch + r]` = font row `r` of `glyph` with every pixel repeated `scale` times
 * horizontally: `cw·scale` bits, leftmost pixel most significant, 1 = ink.
 */
export function glyphRowTable(atlas: Atlas, scale: number): Uint32Array {
  let perScale = rowTables.get(atlas);
  if (!perScale) rowTables.set(atlas, (perScale = new Map()));
  let table = perScale.get(scale);
  if (table) return table;
  const { cellWidth: cw, glyphs } = atlas;
  table = new Uint32Array(glyphs.length);
  const unit = (1 << scale) - 1;
  for (let i = 0; i < glyphs.length; i++) {
    const row = glyphs[i]! >>> (8 - cw);
    let wide = 0;
    for (let b = cw - 1; b >= 0; b--) wide = (wide << scale) | (((row >>> b) & 1) * unit);
    table[i] = wide;
  }
  perScale.set(scale, table);
  return table;
}

/**
 * The layout state machine of §4, resumable at page boundaries. It reads the raw text and applies
 * §1 as it goes: CR/CRLF end a line, tabs become pending spaces, spaces and line breaks are held back
 * until something visible follows them (so trailing spaces and trailing newlines vanish).
 */
class Layout {
  private pos = 0;
  private col = 0; // code point column in the hard line, for tab stops
  private heldSpaces = 0;
  private heldBreaks = 0;
  private skipLF = false;
  private started = false;
  private finished = false;
  // Work released when a visible code point arrives; drained one cell/row at a time so a page can end
  // anywhere. Escape cells queue up in `queue`.
  private breaks = 0;
  private spaces = 0;
  private readonly queue = new Uint16Array(10);
  private readonly queueStarts = new Uint8Array(10);
  private queueAt = 0;
  private queueLength = 0;
  // The row being filled: one extra slot, since a row wraps only when a cell arrives at a full row.
  private readonly cells: Uint16Array;
  private readonly starts: Uint8Array; // 1 = first cell of a code point, 2 = first cell of an escape
  private n = 0;
  private readonly flow: boolean;
  /** Flow: no visible cell since the last newline mark or the text's start (blanks are indentation). */
  private indent = true;
  // Per page.
  rowsOnPage = 0;
  chars = 0;
  escapes = 0;

  constructor(
    private readonly text: string,
    private readonly atlas: Atlas,
    private readonly g: PageGeometry,
    private readonly drawRow: ((cells: Uint16Array, count: number, row: number) => void) | undefined,
  ) {
    this.cells = new Uint16Array(g.cols + 1);
    this.starts = new Uint8Array(g.cols + 1);
    this.flow = g.layout === 'flow';
  }

  private emit(count: number, newline: boolean): void {
    const starts = this.starts;
    let chars = newline ? 1 : 0;
    let escapes = 0;
    for (let i = 0; i < count; i++) {
      const s = starts[i]!;
      if (s !== 0) chars++;
      if (s === 2) escapes++;
    }
    this.chars += chars;
    this.escapes += escapes;
    if (this.flow && this.drawRow) this.markSpaces(count);
    this.drawRow?.(this.cells, count, this.rowsOnPage);
    this.rowsOnPage++;
  }

  /**
   * Flow (§4): a space a reader could not count is drawn as the visible space mark: indentation, a
   * run of two or more spaces, and the blank runs that start a row or end a full row (so a run a row
   * end splits is marked on both sides). A single space between two visible cells of a row stays
   * blank, as between words.
   */
  private markSpaces(count: number): void {
    const cells = this.cells;
    let i = 0;
    while (i < count) {
      const g = cells[i]!;
      if (g !== GLYPH_BLANK) {
        this.indent = g === GLYPH_NEWLINE;
        i++;
        continue;
      }
      let j = i + 1;
      while (j < count && cells[j] === GLYPH_BLANK) j++;
      if (this.indent || j - i >= 2 || i === 0 || (j === count && count === this.g.cols)) {
        cells.fill(GLYPH_SPACE, i, j);
      }
      i = j;
    }
  }

  /** Adds one cell to the row; wraps first when the row is full (§4: more than `cols` cells remain). */
  private push(glyph: number, start: number): void {
    const cols = this.g.cols;
    if (this.n === cols && this.flow) {
      // Flow: a full row is simply emitted; the next cell starts the next row, with no mark.
      this.emit(cols, false);
      this.n = 0;
    } else if (this.n === cols) {
      const cells = this.cells;
      const starts = this.starts;
      const lastGlyph = cells[cols - 1]!;
      const lastStart = starts[cols - 1]!;
      cells[cols - 1] = GLYPH_MARK;
      starts[cols - 1] = 0;
      this.emit(cols, false);
      cells[0] = lastGlyph;
      starts[0] = lastStart;
      this.n = 1;
    }
    this.cells[this.n] = glyph;
    this.starts[this.n] = start;
    this.n++;
  }

  private endLine(newline: boolean): void {
    if (this.flow) {
      // Flow: a line break is a cell (the newline mark, one character); the end of the text only
      // flushes the last, partly filled row.
      if (newline) this.push(GLYPH_NEWLINE, 1);
      else if (this.n > 0) {
        this.emit(this.n, false);
        this.n = 0;
      }
      return;
    }
    this.emit(this.n, newline);
    this.n = 0;
  }

  /** Lays out rows until the page is full or the text ends; returns false when nothing was laid out. */
  fillPage(): boolean {
    this.rowsOnPage = 0;
    this.chars = 0;
    this.escapes = 0;
    const { text, atlas } = this;
    const rows = this.g.rows;
    const bmp = atlas.bmp;
    const length = text.length;
    for (;;) {
      while (this.breaks > 0) {
        this.breaks--;
        this.endLine(true);
        if (this.rowsOnPage === rows) return true;
      }
      while (this.spaces > 0) {
        this.spaces--;
        this.push(GLYPH_BLANK, 1);
        if (this.rowsOnPage === rows) return true;
      }
      while (this.queueAt < this.queueLength) {
        const i = this.queueAt++;
        this.push(this.queue[i]!, this.queueStarts[i]!);
        if (this.rowsOnPage === rows) return true;
      }
      // The hot loop: visible code points with nothing held back go straight into the row.
      for (;;) {
        if (this.pos >= length) {
          if (this.started && !this.finished) {
            this.finished = true;
            this.endLine(false);
          }
          return this.rowsOnPage > 0;
        }
        let c = text.charCodeAt(this.pos++);
        if (c === 10) {
          if (this.skipLF) {
            this.skipLF = false;
            continue;
          }
          this.heldBreaks++;
          this.heldSpaces = 0;
          this.col = 0;
          continue;
        }
        this.skipLF = false;
        if (c === 32) {
          this.heldSpaces++;
          this.col++;
          continue;
        }
        if (c === 9) {
          const k = TAB_WIDTH - (this.col % TAB_WIDTH);
          this.heldSpaces += k;
          this.col += k;
          continue;
        }
        if (c === 13) {
          this.skipLF = true;
          this.heldBreaks++;
          this.heldSpaces = 0;
          this.col = 0;
          continue;
        }
        if (c >= 0xd800 && c <= 0xdbff && this.pos < length) {
          const d = text.charCodeAt(this.pos);
          if (d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            this.pos++;
          }
        }
        this.col++;
        this.started = true;
        const glyph = c < 0x10000 ? bmp[c]! : glyphOf(atlas, c);
        if (this.heldBreaks === 0 && this.heldSpaces === 0 && glyph >= 0) {
          this.push(glyph, 1);
          if (this.rowsOnPage === rows) return true;
          continue;
        }
        this.breaks = this.heldBreaks;
        this.spaces = this.heldSpaces;
        this.heldBreaks = 0;
        this.heldSpaces = 0;
        this.queueAt = 0;
        if (glyph >= 0) {
          this.queue[0] = glyph;
          this.queueStarts[0] = 1;
          this.queueLength = 1;
        } else {
          this.queueLength = spellEscape(c, this.queue, this.queueStarts);
        }
        break;
      }
    }
  }
}

function checkArgs(fn: string, text: unknown, options: unknown): void {
  if (typeof text !== 'string') {
    throw new TypeError(`${fn}: expected text to be a string, found ${text === null ? 'null' : typeof text}`);
  }
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `${fn}: expected options { ${fn === 'layoutRows' ? 'cols' : 'shape'}, cell?, scale? }, found ${String(options)}`,
    );
  }
}

/** Writes the cells of `U+XXXX` (§3) for `codePoint` into `cells`; returns how many. */
function spellEscape(codePoint: number, cells: Uint16Array, starts: Uint8Array): number {
  const digits = codePoint > 0xfffff ? 6 : codePoint > 0xffff ? 5 : 4;
  cells[0] = GLYPH_U;
  cells[1] = GLYPH_PLUS;
  starts.fill(0);
  starts[0] = 2;
  for (let i = 0; i < digits; i++) cells[2 + i] = GLYPH_HEX + ((codePoint >>> (4 * (digits - 1 - i))) & 15);
  return 2 + digits;
}

/**
 * Renders `text` (normalized on the fly, §1) into pages of scanlines, one page at a time. The same
 * buffer is reused for every page, so memory stays O(one page); copy `scanlines` to keep a page.
 * Throws like {@link pageGeometry} for a bad shape, cell or scale.
 */
export function* renderScanlines(text: string, options: LayoutOptions): Generator<ScanlinePage, void, void> {
  if (typeof text !== 'string') {
    throw new TypeError(
      `render: expected text to be a string, found ${text === null ? 'null' : typeof text}`,
    );
  }
  const g = layoutGeometry(options);
  const atlas = atlasFor(g.cell, g.spacing);
  const table = glyphRowTable(atlas, g.scale);
  const { stride, scale, cellHeight: ch } = g;
  const cellBits = g.cellWidth * scale;
  const rowBytes = ch * scale * stride; // one row of cells
  const page = new Uint8Array(g.height * stride);

  const drawRow = (cells: Uint16Array, count: number, row: number): void => {
    let y = row * rowBytes;
    for (let r = 0; r < ch; r++) {
      let o = y + 1;
      let acc = 0;
      let bits = 0;
      for (let i = 0; i < count; i++) {
        acc = (acc << cellBits) | table[cells[i]! * ch + r]!;
        bits += cellBits;
        while (bits >= 8) {
          bits -= 8;
          page[o++] = ~(acc >>> bits) & 0xff;
        }
      }
      // Padding bits after the last cell are 1 (white); the rest of the scanline is already white.
      if (bits > 0) page[o++] = ~(acc << (8 - bits)) & 0xff;
      for (let k = 1; k < scale; k++) page.copyWithin(y + k * stride, y, o);
      y += scale * stride;
    }
  };

  const layout = new Layout(text, atlas, g, drawRow);
  for (let index = 0; ; index++) {
    // White page, filter byte 0 (None) at the start of every scanline.
    page.fill(0xff);
    for (let o = 0; o < page.length; o += stride) page[o] = 0;
    if (!layout.fillPage()) return;
    yield {
      index,
      width: g.width,
      height: g.height,
      stride,
      chars: layout.chars,
      escapes: layout.escapes,
      scanlines: page,
    };
  }
}

/** Layout only: how many pages `text` takes, how many code points it holds and how many are escaped. */
export function countPages(
  text: string,
  options: LayoutOptions,
): { pages: number; chars: number; escapes: number } {
  checkArgs('countPages', text, options);
  const g = layoutGeometry(options);
  const layout = new Layout(text, atlasFor(g.cell, g.spacing), g, undefined);
  let pages = 0;
  let chars = 0;
  let escapes = 0;
  while (layout.fillPage()) {
    pages++;
    chars += layout.chars;
    escapes += layout.escapes;
  }
  return { pages, chars, escapes };
}

/**
 * Exact rows `normalize(text)` takes on rows of `cols` cells in `layout` with `cell`'s font (which
 * code points are escapes depends on the font; spacing and scale do not change the count). For
 * planning pages of any height: pages = ceil(rows / rows per page).
 */
export function layoutRows(
  text: string,
  options: { cols: number; cell?: CellName; layout?: LayoutKind },
): number {
  checkArgs('layoutRows', text, options);
  const { cols } = options;
  if (!Number.isInteger(cols) || cols < 2) {
    throw new RangeError(`layoutRows: cols must be an integer ≥ 2, found ${String(cols)}`);
  }
  const v = variantOf({ cell: options.cell, layout: options.layout });
  const g = { cols, rows: Number.MAX_SAFE_INTEGER, layout: v.layout } as PageGeometry;
  const layout = new Layout(text, atlasFor(v.cell), g, undefined);
  layout.fillPage();
  return layout.rowsOnPage;
}
