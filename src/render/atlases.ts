/** The atlases generated from fonts/ (scripts/build-fonts.ts), decoded once per cell on first use. */
import { decodeAtlas, fromBase64, spaceAtlas, type Atlas } from './atlas.js';
import { CELL_NAMES, type CellName } from './cells.js';
import { NO_SPACING, type Spacing } from './variant.js';
import { ATLAS_4X6 } from './generated/atlas-4x6.js';
import { ATLAS_5X8 } from './generated/atlas-5x8.js';
import { ATLAS_6X10 } from './generated/atlas-6x10.js';

const SOURCES: Record<CellName, string> = { '4x6': ATLAS_4X6, '5x8': ATLAS_5X8, '6x10': ATLAS_6X10 };
const cache = new Map<string, Atlas>();
const rawCache = new Map<string, Uint8Array>();

/**
 * The binary atlas (docs/renderer.md §6) of `cell` with `spacing` applied (cached), e.g. to copy into
 * WASM memory; throws a RangeError for an unknown cell. Decoding into lookup tables is left to
 * {@link atlasFor}, so the WASM path never builds them.
 */
export function atlasBytes(cell: CellName = '4x6', spacing: Spacing = NO_SPACING): Uint8Array {
  const key = `${cell}+${spacing.x}+${spacing.y}`;
  let bytes = rawCache.get(key);
  if (!bytes) {
    if (!Object.hasOwn(SOURCES, cell)) {
      throw new RangeError(`unknown cell '${String(cell)}': expected one of ${CELL_NAMES.join(', ')}`);
    }
    bytes = spaceAtlas(fromBase64(SOURCES[cell]), spacing.x, spacing.y);
    rawCache.set(key, bytes);
  }
  return bytes;
}

/** The decoded atlas of `cell` with `spacing` (cached); throws a RangeError for an unknown cell. */
export function atlasFor(cell: CellName = '4x6', spacing: Spacing = NO_SPACING): Atlas {
  const key = `${cell}+${spacing.x}+${spacing.y}`;
  let atlas = cache.get(key);
  if (!atlas) {
    atlas = decodeAtlas(atlasBytes(cell, spacing));
    cache.set(key, atlas);
  }
  return atlas;
}
