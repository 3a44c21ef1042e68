/**
 * Page variants as the bench uses them: glyphfold's own variant ids (`parseVariant`, docs/renderer.md
 * §2) plus the bench's page rule — 84 columns in `lines`, the most columns within 960 px in `flow`.
 */
import {
  layoutRows,
  parseVariant,
  variantCell,
  variantId,
  type CellName,
  type Layout,
  type Variant,
} from '../../src/render/index.js';

/** Columns of a `lines` page: the generator keeps every line within them, so no line wraps. */
export const LINES_COLUMNS = 84;
/** Widest `flow` page in pixels: flow pages take the largest column count that fits. */
// 640, not 960: in the first blind round (2026-11-30, bench/legibility/results) readers of 960-px flow
// pages of 5-px glyphs (160–240 characters a row) said they could not hold the row and filled in from
// other texts; a pilot at 720 px read them at 0.2–0.7% CER.
export const FLOW_MAX_WIDTH = 640;
/** Tallest kit page in pixels; a taller text is split into parts `-a`, `-b`, … */
export const MAX_PAGE_HEIGHT = 1000;

export interface BenchVariant {
  /** Canonical id (`variantId`). */
  id: string;
  variant: Variant;
  cell: CellName;
  layout: Layout;
  /** Pixel pitch of one cell (glyph, spacing and scale included). */
  pitch: { width: number; height: number };
  /** Columns of a page of this variant. */
  cols: number;
}

/** Parses a variant id (`<font>[+c<N>][+r<N>][+s<N>][+flow]`); RangeError naming the bad part. */
export function benchVariant(
  id: string,
  flowWidth = FLOW_MAX_WIDTH,
  flowCols?: number,
  linesCols = LINES_COLUMNS,
): BenchVariant {
  const variant = parseVariant(id);
  const pitch = variantCell(variant);
  const cols = variant.layout === 'lines' ? linesCols : (flowCols ?? Math.floor(flowWidth / pitch.width));
  return { id: variantId(variant), variant, cell: variant.cell, layout: variant.layout, pitch, cols };
}

/** The render/decode options that draw `v` (shape excluded). */
export function variantOptions(v: BenchVariant): { variant: Variant } {
  return { variant: v.variant };
}

/** Exact rows `text` takes at `v`'s columns in its layout (renderer.md §4), escapes included. */
export function variantRows(text: string, v: BenchVariant): number {
  return layoutRows(text, { cols: v.cols, cell: v.cell, layout: v.layout });
}
