/** The atlases generated from fonts/fonts.json (scripts/build-fonts.ts), decoded once per cell on first use. */
import { decodeAtlas, type Atlas } from './atlas.js';
import { atlasData } from './atlas-data.js';
import type { CellName } from './cells.js';

const cache = new Map<CellName, Atlas>();

/** The decoded atlas of `cell` (cached); throws a RangeError for an unknown cell. */
export function atlasFor(cell: CellName = '4x6'): Atlas {
  let atlas = cache.get(cell);
  if (!atlas) {
    atlas = decodeAtlas(atlasData(cell));
    cache.set(cell, atlas);
  }
  return atlas;
}

/** The binary atlas of `cell` (docs/renderer.md §6), e.g. to copy into WASM memory. */
export function atlasBytes(cell: CellName = '4x6'): Uint8Array {
  return atlasFor(cell).bytes;
}
