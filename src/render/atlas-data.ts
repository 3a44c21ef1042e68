/**
 * The binary atlas of a font (docs/renderer.md §6) from its generated module. The modules hold the
 * layout zlib-compressed, then base64: twelve fonts raw would add ~250 KB of string literal for every
 * cold start to parse, compressed they add ~75 KB (see fonts/README.md). Inflating runs once per font,
 * on first use (callers cache).
 */
import { fromBase64 } from './atlas.js';
import { CELL_NAMES, type CellName } from './cells.js';
import { ATLAS_SOURCES } from './generated/atlas-sources.js';
import { inflateZlib } from './inflate.js';

/** The atlas layout of `cell`, freshly inflated; throws a RangeError for an unknown cell. */
export function atlasData(cell: CellName): Uint8Array {
  const source = Object.hasOwn(ATLAS_SOURCES, cell) ? ATLAS_SOURCES[cell] : undefined;
  if (source === undefined) {
    throw new RangeError(`unknown cell '${String(cell)}': expected one of ${CELL_NAMES.join(', ')}`);
  }
  return inflateZlib(fromBase64(source));
}
