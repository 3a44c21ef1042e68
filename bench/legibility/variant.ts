/**
 * Page variants as the bench uses them. Every variant id goes through {@link resolveVariant}: when
 * glyphfold's `parseVariant` / `layoutRows` land in src/render (docs: /work/notes/variant-api.md), this
 * file is the only one that changes.
 */
import {
  CELL_NAMES,
  cellSize,
  countPages,
  normalize,
  type CellName,
  type RenderOptions,
} from '../../src/render/index.js';

export type Layout = 'lines' | 'flow';

/** Columns of a `lines` page: the generator keeps every line within them, so no line wraps. */
export const LINES_COLUMNS = 84;
/** Widest `flow` page in pixels: flow pages take the largest column count that fits. */
export const FLOW_MAX_WIDTH = 960;
/** Tallest kit page in pixels; a taller text is split into parts `-a`, `-b`, … */
export const MAX_PAGE_HEIGHT = 1000;

export interface BenchVariant {
  /** The id as given (canonical once parseVariant lands). */
  id: string;
  cell: CellName;
  scale: number;
  spacing: { x: number; y: number };
  layout: Layout;
  /** Pixel pitch of one cell (glyph, spacing and scale included). */
  pitch: { width: number; height: number };
  /** Columns of a page of this variant. */
  cols: number;
}

/**
 * Parses a variant id (`<font>[+c<N>][+r<N>][+s<N>][+flow]`). Until the variant API is on main only
 * `<font>[+s<N>]` with today's fonts can be rendered; spacing and flow throw a clear error.
 */
export function resolveVariant(id: string): BenchVariant {
  const parts = id.split('+');
  const cell = parts[0] as CellName;
  if (!CELL_NAMES.includes(cell)) {
    throw new RangeError(
      `variant '${id}': unknown font '${parts[0]}', expected one of ${CELL_NAMES.join(', ')}`,
    );
  }
  let scale = 1;
  const spacing = { x: 0, y: 0 };
  let layout: Layout = 'lines';
  for (const part of parts.slice(1)) {
    const m = /^([crs])(\d)$/.exec(part);
    if (m && m[1] === 's') scale = Number(m[2]);
    else if (m && m[1] === 'c') spacing.x = Number(m[2]);
    else if (m && m[1] === 'r') spacing.y = Number(m[2]);
    else if (part === 'flow') layout = 'flow';
    else
      throw new RangeError(`variant '${id}': unknown modifier '${part}', expected c<N>, r<N>, s<N> or flow`);
  }
  if (spacing.x !== 0 || spacing.y !== 0 || layout !== 'lines') {
    throw new Error(
      `not implemented: variant '${id}' needs spacing/flow from src/render (parseVariant), not on this branch yet`,
    );
  }
  const size = cellSize(cell, scale);
  const pitch = { width: size.width, height: size.height };
  const cols = layout === 'lines' ? LINES_COLUMNS : Math.floor(FLOW_MAX_WIDTH / pitch.width);
  return { id, cell, scale, spacing, layout, pitch, cols };
}

/** The render/decode options that draw `v` (shape excluded). */
export function variantOptions(v: BenchVariant): Pick<RenderOptions, 'cell' | 'scale'> {
  return { cell: v.cell, scale: v.scale };
}

/**
 * Exact rows `text` takes at `v`'s columns (renderer.md §4), escapes included: the smallest page
 * height that holds the text on one page, found with `countPages` (binary search per chunk of lines;
 * in `lines` layout rows add up across line boundaries).
 */
export function variantRows(text: string, v: BenchVariant): number {
  if (v.layout !== 'lines')
    throw new Error(`not implemented: rows of layout '${v.layout}' (needs layoutRows)`);
  const lines = normalize(text).split('\n');
  if (lines.length === 1 && lines[0] === '') return 0;
  let rows = 0;
  for (let i = 0; i < lines.length; i += 400) {
    const chunk = lines.slice(i, i + 400);
    // normalize() drops trailing empty lines, so they are counted here (one row each).
    while (chunk.length > 0 && chunk[chunk.length - 1] === '') {
      chunk.pop();
      rows++;
    }
    const chunkText = chunk.join('\n');
    // An escape spells at most `U+10FFFF` (8 cells): a safe upper bound for the search.
    let hi = 2;
    for (const line of chunk) hi += Math.ceil(([...line].length * 8 + 1) / (v.cols - 1));
    if (chunk.length === 0) continue;
    let lo = 2;
    const fits = (r: number) =>
      countPages(chunkText, {
        shape: { width: v.cols * v.pitch.width, height: r * v.pitch.height },
        ...variantOptions(v),
      }).pages <= 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (fits(mid)) hi = mid;
      else lo = mid + 1;
    }
    // Two rows is the smallest page: a chunk of one short line takes one.
    rows += lo === 2 && chunk.length === 1 && [...chunk[0]!].length <= v.cols ? 1 : lo;
  }
  return rows;
}
