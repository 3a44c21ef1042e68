/** The atlases generated from fonts/ (scripts/build-fonts.ts), decoded once per cell on first use. */
import { decodeAtlas, fromBase64, type Atlas } from './atlas.js';
import { CELL_NAMES, type CellName } from './cells.js';
import { ATLAS_4X6 } from './generated/atlas-4x6.js';
import { ATLAS_5X8 } from './generated/atlas-5x8.js';
import { ATLAS_6X10 } from './generated/atlas-6x10.js';

const SOURCES: Record<CellName, string> = { '4x6': ATLAS_4X6, '5x8': ATLAS_5X8, '6x10': ATLAS_6X10 };
const cache = new Map<CellName, Atlas>();

/** The decoded atlas of `cell` (cached); throws a RangeError for an unknown cell. */
export function atlasFor(cell: CellName = '4x6'): Atlas {
  let atlas = cache.get(cell);
  if (!atlas) {
    const source = Object.hasOwn(SOURCES, cell) ? SOURCES[cell] : undefined;
    if (source === undefined) {
      throw new RangeError(`unknown cell '${String(cell)}': expected one of ${CELL_NAMES.join(', ')}`);
    }
    atlas = decodeAtlas(fromBase64(source));
    cache.set(cell, atlas);
  }
  return atlas;
}

/** The binary atlas of `cell` (docs/renderer.md §6), e.g. to copy into WASM memory. */
export function atlasBytes(cell: CellName = '4x6'): Uint8Array {
  return atlasFor(cell).bytes;
}
