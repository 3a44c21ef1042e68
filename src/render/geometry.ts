/** Page geometry (docs/renderer.md §2): validates a shape for a cell and scale and derives the grid. */
import { CELL_NAMES, CELLS, MAX_SCALE, type CellName } from './cells.js';

/** Width × height of a page in pixels. */
export interface PageShape {
  width: number;
  height: number;
}

/** Largest page side, and largest page area, a renderer accepts (beyond them a request is a mistake). */
export const MAX_PAGE_SIDE = 65535;
export const MAX_PAGE_PIXELS = 64 * 1024 * 1024;

export interface PageGeometry {
  cell: CellName;
  scale: number;
  /** Font cell in font pixels. */
  cellWidth: number;
  cellHeight: number;
  width: number;
  height: number;
  cols: number;
  rows: number;
  /** Bytes per scanline: the filter byte plus `ceil(width / 8)` packed pixels. */
  stride: number;
}

/**
 * Validates `shape`, `cell` and `scale` and returns the page grid. Throws a TypeError for a wrong type
 * and a RangeError naming expected vs found for a bad value (a page must hold at least 2×2 cells).
 */
export function pageGeometry(shape: PageShape, cell: CellName = '4x6', scale = 1): PageGeometry {
  if (typeof shape !== 'object' || shape === null) {
    throw new TypeError(
      `shape: expected { width, height } in pixels, found ${shape === null ? 'null' : typeof shape}`,
    );
  }
  const font = Object.hasOwn(CELLS, cell) ? CELLS[cell] : undefined;
  if (!font) throw new RangeError(`unknown cell '${String(cell)}': expected one of ${CELL_NAMES.join(', ')}`);
  if (!Number.isInteger(scale) || scale < 1 || scale > MAX_SCALE) {
    throw new RangeError(`scale must be an integer from 1 to ${MAX_SCALE}, found ${String(scale)}`);
  }
  const { width, height } = shape;
  for (const [name, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_PAGE_SIDE) {
      throw new RangeError(
        `shape.${name} must be an integer from 1 to ${MAX_PAGE_SIDE} pixels, found ${String(v)}`,
      );
    }
  }
  if (width * height > MAX_PAGE_PIXELS) {
    throw new RangeError(
      `shape ${width}x${height} has ${width * height} pixels, more than the ${MAX_PAGE_PIXELS} a page may have`,
    );
  }
  const cw = font.width * scale;
  const ch = font.height * scale;
  const cols = Math.floor(width / cw);
  const rows = Math.floor(height / ch);
  if (cols < 2 || rows < 2) {
    throw new RangeError(
      `shape ${width}x${height} holds ${cols}x${rows} cells of ${cell} at scale ${scale} (${cw}x${ch} px); ` +
        `expected at least 2x2, i.e. at least ${2 * cw}x${2 * ch} pixels`,
    );
  }
  return {
    cell,
    scale,
    cellWidth: font.width,
    cellHeight: font.height,
    width,
    height,
    cols,
    rows,
    stride: 1 + Math.ceil(width / 8),
  };
}
