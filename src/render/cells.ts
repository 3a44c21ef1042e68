/**
 * The bitmap fonts glyphfold ships and their cell sizes in pixels. The table is data (fonts/fonts.json,
 * provenance in fonts/README.md); `npm run build:fonts` generates the `CellName` union from it.
 */
import { CELL_SIZES, type CellName } from './generated/cells.js';

export type { CellName };

export const CELLS: Readonly<Record<CellName, { width: number; height: number }>> = CELL_SIZES;

export const CELL_NAMES = Object.keys(CELLS) as CellName[];

/** Integer scale factors a page may use: every font pixel becomes a scale × scale block. */
export const MAX_SCALE = 4;

/** Pixel size of one cell at `scale`; throws a RangeError naming the bad cell or scale. */
export function cellSize(cell: CellName = '4x6', scale = 1): { width: number; height: number } {
  // Own keys only: '__proto__' or 'constructor' must not find Object.prototype's members.
  const size = Object.hasOwn(CELLS, cell) ? CELLS[cell] : undefined;
  if (!size) throw new RangeError(`unknown cell '${String(cell)}': expected one of ${CELL_NAMES.join(', ')}`);
  if (!Number.isInteger(scale) || scale < 1 || scale > MAX_SCALE) {
    throw new RangeError(`scale must be an integer from 1 to ${MAX_SCALE}, found ${String(scale)}`);
  }
  return { width: size.width * scale, height: size.height * scale };
}
