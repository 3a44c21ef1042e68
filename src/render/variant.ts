/**
 * Page variants (docs/renderer.md §2): how a page draws text — the font, blank spacing added to every
 * cell, the integer scale and the layout. A variant has a canonical id, `<font>[+c<N>][+r<N>][+s<N>][+flow]`
 * (e.g. `6x10`, `5x8+c1+r1`, `4x6+s2`, `6x10+r1+flow`), so that measured legibility, provider choices
 * and compaction records can name it in one string.
 */
import { CELL_NAMES, CELLS, MAX_SCALE, type CellName } from './cells.js';

/**
 * `lines`: every hard line starts a row; a longer line soft-wraps with the continuation mark in the
 * last column. `flow`: rows are filled completely; a hard line break is drawn as the newline mark and
 * the next line goes on in the same row (short lines waste no cells).
 */
export type Layout = 'lines' | 'flow';
export const LAYOUTS: readonly Layout[] = ['lines', 'flow'];

/** Blank pixels added right of (x) and below (y) every glyph, in font pixels (scaled like the glyph). */
export interface Spacing {
  x: number;
  y: number;
}

export interface Variant {
  cell: CellName;
  scale: number;
  spacing: Spacing;
  layout: Layout;
}

/** Largest extra spacing per axis: a cell stays at most 8 font pixels wide (one atlas byte per row). */
export const MAX_SPACING_X = 2;
export const MAX_SPACING_Y = 3;

export const NO_SPACING: Readonly<Spacing> = Object.freeze({ x: 0, y: 0 });

function checkInt(name: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, found ${String(v)}`);
  }
  return v;
}

function checkCell(cell: unknown): CellName {
  if (typeof cell !== 'string' || !Object.hasOwn(CELLS, cell)) {
    throw new RangeError(`unknown cell '${String(cell)}': expected one of ${CELL_NAMES.join(', ')}`);
  }
  return cell as CellName;
}

/** Validates spacing for `cell` (a spaced cell is at most 8 pixels wide). */
export function checkSpacing(spacing: Partial<Spacing> | undefined, cell: CellName): Spacing {
  if (spacing === undefined) return NO_SPACING;
  if (typeof spacing !== 'object' || spacing === null) {
    throw new TypeError(`spacing: expected { x?, y? } in font pixels, found ${String(spacing)}`);
  }
  const x = checkInt('spacing.x', spacing.x ?? 0, 0, MAX_SPACING_X);
  const y = checkInt('spacing.y', spacing.y ?? 0, 0, MAX_SPACING_Y);
  const width = CELLS[cell].width + x;
  if (width > 8) {
    throw new RangeError(`cell ${cell} with spacing.x ${x} is ${width} pixels wide; at most 8 are supported`);
  }
  return x === 0 && y === 0 ? NO_SPACING : { x, y };
}

/** A complete, validated variant from partial options (defaults: 4x6, scale 1, no spacing, lines). */
export function resolveVariant(v: {
  cell?: CellName | undefined;
  scale?: number | undefined;
  spacing?: Partial<Spacing> | undefined;
  layout?: Layout | undefined;
}): Variant {
  const cell = checkCell(v.cell ?? '4x6');
  const scale = checkInt('scale', v.scale ?? 1, 1, MAX_SCALE);
  const spacing = checkSpacing(v.spacing, cell);
  const layout = v.layout ?? 'lines';
  if (!LAYOUTS.includes(layout)) {
    throw new RangeError(`layout must be one of ${LAYOUTS.join(', ')}, found ${String(layout)}`);
  }
  return { cell, scale, spacing, layout };
}

/**
 * Parses a variant id (`6x10+r1+flow`). Modifiers: `c<N>` extra blank columns, `r<N>` extra blank
 * rows, `s<N>` scale, `flow` layout; each at most once, in any order. Throws a RangeError naming the
 * part that is wrong.
 */
export function parseVariant(id: string): Variant {
  if (typeof id !== 'string' || id === '') {
    throw new RangeError(`variant: expected an id like '6x10+r1+flow', found ${JSON.stringify(id)}`);
  }
  const [font, ...mods] = id.split('+');
  const cell = checkCell(font);
  const seen = new Set<string>();
  const v: { cell: CellName; scale?: number; spacing: Partial<Spacing>; layout?: Layout } = {
    cell,
    spacing: {},
  };
  for (const mod of mods) {
    const m = /^(c|r|s)(\d+)$/.exec(mod);
    const kind = mod === 'flow' || mod === 'lines' ? 'layout' : m ? m[1]! : undefined;
    if (kind === undefined) {
      throw new RangeError(
        `variant '${id}': unknown modifier '${mod}'; expected c<N> (blank columns), r<N> (blank rows), s<N> (scale) or flow`,
      );
    }
    if (seen.has(kind)) throw new RangeError(`variant '${id}': modifier '${kind}' given twice`);
    seen.add(kind);
    if (kind === 'layout') v.layout = mod as Layout;
    else if (kind === 'c') v.spacing.x = Number(m![2]);
    else if (kind === 'r') v.spacing.y = Number(m![2]);
    else v.scale = Number(m![2]);
  }
  try {
    return resolveVariant(v);
  } catch (err) {
    throw new RangeError(`variant '${id}': ${(err as Error).message}`, { cause: err });
  }
}

/** The canonical id of a variant: modifiers in the order c, r, s, flow; defaults omitted. */
export function variantId(v: {
  cell: CellName;
  scale?: number | undefined;
  spacing?: Partial<Spacing> | undefined;
  layout?: Layout | undefined;
}): string {
  const r = resolveVariant(v);
  let id: string = r.cell;
  if (r.spacing.x) id += `+c${r.spacing.x}`;
  if (r.spacing.y) id += `+r${r.spacing.y}`;
  if (r.scale !== 1) id += `+s${r.scale}`;
  if (r.layout === 'flow') id += '+flow';
  return id;
}

/** Pixel pitch of one cell of `v` on the page: (font + spacing) × scale. */
export function variantCell(v: Variant): { width: number; height: number } {
  const font = CELLS[v.cell];
  return { width: (font.width + v.spacing.x) * v.scale, height: (font.height + v.spacing.y) * v.scale };
}

/**
 * The variant of render/decode/countPages options: `variant` (an id or a Variant) wins over the
 * separate `cell`, `scale`, `spacing` and `layout` fields.
 */
export function variantOf(options: {
  variant?: string | Variant | undefined;
  cell?: CellName | undefined;
  scale?: number | undefined;
  spacing?: Partial<Spacing> | undefined;
  layout?: Layout | undefined;
}): Variant {
  const v = options.variant;
  if (v === undefined) return resolveVariant(options);
  if (typeof v === 'string') return parseVariant(v);
  if (typeof v !== 'object' || v === null) {
    throw new TypeError(
      `variant: expected an id string or { cell, scale, spacing, layout }, found ${String(v)}`,
    );
  }
  return resolveVariant(v);
}
