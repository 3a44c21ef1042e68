/**
 * Page variants as providers and compaction use them: the one place that talks to the render-side
 * variant API (`parseVariant`, `variantId`, `variantCell`, `layoutRows`; docs/renderer.md).
 *
 * ADAPTER: the render-side API is being added on main in parallel. Until it lands here this module
 * implements its published contract itself (same names, same grammar, same arithmetic); once it has
 * landed, the bodies below become re-exports of `../render/index.js` and nothing else changes.
 */
import { CELL_NAMES, MAX_SCALE, cellSize, type CellName } from '../render/cells.js';

export type Layout = 'lines' | 'flow';

/** How a snapshot page draws text: font, extra blank pixels per cell, integer scale, layout. */
export interface Variant {
  cell: CellName;
  scale: number;
  spacing: { x: number; y: number };
  layout: Layout;
}

const MAX_SPACING_X = 2;
const MAX_SPACING_Y = 3;

/**
 * Parses a canonical variant id `<font>[+c<N>][+r<N>][+s<N>][+flow]` (modifiers in that order,
 * omitted when 0, 1 or 'lines'). RangeError naming the bad part.
 */
export function parseVariant(id: string): Variant {
  if (typeof id !== 'string' || id.length === 0) {
    throw new RangeError(`variant: expected an id like '6x10' or '5x8+r1+flow', found ${JSON.stringify(id)}`);
  }
  const [font, ...mods] = id.split('+');
  if (!(CELL_NAMES as string[]).includes(font!)) {
    throw new RangeError(`variant '${id}': unknown font '${font}', expected one of ${CELL_NAMES.join(', ')}`);
  }
  const v: Variant = { cell: font as CellName, scale: 1, spacing: { x: 0, y: 0 }, layout: 'lines' };
  const order = ['c', 'r', 's', 'flow'];
  let last = -1;
  for (const m of mods) {
    const match = /^(c|r|s)(\d+)$/.exec(m);
    const kind = m === 'flow' ? 'flow' : match?.[1];
    const at = kind === undefined ? -1 : order.indexOf(kind);
    if (at < 0) {
      throw new RangeError(`variant '${id}': unknown modifier '${m}', expected c<N>, r<N>, s<N> or flow`);
    }
    if (at <= last) {
      throw new RangeError(`variant '${id}': modifier '${m}' out of order, expected the order c, r, s, flow`);
    }
    last = at;
    const n = match ? Number(match[2]) : 0;
    if (kind === 'c') {
      if (n < 0 || n > MAX_SPACING_X)
        throw new RangeError(`variant '${id}': c${n}, expected c1–c${MAX_SPACING_X}`);
      v.spacing.x = n;
    } else if (kind === 'r') {
      if (n < 0 || n > MAX_SPACING_Y)
        throw new RangeError(`variant '${id}': r${n}, expected r1–r${MAX_SPACING_Y}`);
      v.spacing.y = n;
    } else if (kind === 's') {
      if (n < 1 || n > MAX_SCALE) throw new RangeError(`variant '${id}': s${n}, expected s2–s${MAX_SCALE}`);
      v.scale = n;
    } else v.layout = 'flow';
  }
  return v;
}

/** The canonical id of a variant (defaults: no spacing, scale 1, layout 'lines'). */
export function variantId(v: Partial<Variant> & { cell: CellName }): string {
  let id: string = v.cell;
  const x = v.spacing?.x ?? 0;
  const y = v.spacing?.y ?? 0;
  if (x) id += `+c${x}`;
  if (y) id += `+r${y}`;
  if ((v.scale ?? 1) !== 1) id += `+s${v.scale}`;
  if (v.layout === 'flow') id += '+flow';
  return id;
}

/** Pixel pitch of one cell: the font's cell plus its blank spacing, times the scale. */
export function variantCell(v: Variant): { width: number; height: number } {
  const c = cellSize(v.cell, 1);
  return { width: (c.width + v.spacing.x) * v.scale, height: (c.height + v.spacing.y) * v.scale };
}

/**
 * Rows `text` takes on `cols` columns (an upper bound before the render API lands: escapes counted
 * as 7 cells, tabs as 4). 'lines': every hard line starts a row and a long line wraps with a
 * continuation mark in the last column; 'flow': rows fill completely, a line break is one visible cell.
 */
export function layoutRows(text: string, cols: number, layout: Layout = 'lines'): number {
  if (layout === 'flow') {
    let cells = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) cells += cellsOf(text, i);
    // The text's last line break is not followed by anything: the mark still takes its cell.
    return Math.max(1, Math.ceil(cells / cols));
  }
  let rows = 0;
  let cells = 0;
  const n = text.length;
  const lineRows = (c: number) => (c <= cols ? 1 : 1 + Math.ceil((c - cols) / (cols - 1)));
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      rows += lineRows(cells);
      cells = 0;
    } else cells += cellsOf(text, i);
  }
  return rows + lineRows(cells);
}

/** Cells the code unit at `i` takes (a line break is one cell: flow draws it as a mark). */
function cellsOf(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 32 && c < 127) return 1;
  if (c === 10) return 1;
  if (c === 13) return text.charCodeAt(i + 1) === 10 ? 0 : 1;
  if (c === 9) return 4;
  if (c >= 0xdc00 && c <= 0xdfff && i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800) return 0;
  return 7;
}
