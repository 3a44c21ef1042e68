/** The atlases generated from fonts/fonts.json (scripts/build-fonts.ts), spaced and decoded once per cell on first use. */
import { decodeAtlas, spaceAtlas, type Atlas } from './atlas.js';
import { atlasData } from './atlas-data.js';
import type { CellName } from './cells.js';
import { NO_SPACING, type Spacing } from './variant.js';

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
    bytes = spaceAtlas(atlasData(cell), spacing.x, spacing.y);
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
