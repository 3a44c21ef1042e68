/**
 * The font table (fonts/fonts.json) and how to turn one entry into a parsed font: read its BDF, check
 * the BDF's sha256, and for a tuned glyph set apply its overrides to the base font. Used by
 * scripts/build-fonts.ts and by the tests, so both build exactly the same glyphs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildAtlas, decodeAtlas, glyphOf } from '../../src/render/atlas.js';
import { parseBdf, type BdfFont } from '../../src/render/bdf.js';
import { applyTuned, parseTuned } from '../../src/render/tuned.js';

export const fontsDir = fileURLToPath(new URL('../../fonts/', import.meta.url));

/** One row of fonts/fonts.json: a BDF font (`file`) or a tuned glyph set over another row (`tuned`). */
export interface FontEntry {
  name: string;
  width: number;
  height: number;
  file?: string;
  source?: { package: string; version: string; path: string };
  sourceSha256?: string;
  bdfSha256?: string;
  tuned?: string;
  licence: string;
  licenceFile: string;
  /** The continuation mark, `height` rows of `width` '.'/'#' (docs/renderer.md §6). */
  mark: string[];
}

/** Reads fonts/fonts.json and checks each row's shape; throws naming the row and the bad field. */
export function loadFontTable(): FontEntry[] {
  const table = JSON.parse(readFileSync(`${fontsDir}fonts.json`, 'utf8')) as { fonts: FontEntry[] };
  const names = new Set<string>();
  for (const [i, f] of table.fonts.entries()) {
    const where = `fonts/fonts.json row ${i} (${String(f.name)})`;
    if (typeof f.name !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(f.name)) {
      throw new Error(`${where}: name must be lower-case letters, digits and '-'`);
    }
    if (names.has(f.name)) throw new Error(`${where}: duplicate name`);
    names.add(f.name);
    if (!Number.isInteger(f.width) || f.width < 1 || f.width > 8) {
      throw new Error(`${where}: width must be 1–8 (one byte per atlas row), found ${String(f.width)}`);
    }
    if (!Number.isInteger(f.height) || f.height < 1)
      throw new Error(`${where}: bad height ${String(f.height)}`);
    if ((f.file === undefined) === (f.tuned === undefined)) {
      throw new Error(`${where}: expected exactly one of 'file' (a BDF) or 'tuned' (a glyph set)`);
    }
    if (f.file !== undefined && !/^[0-9a-f]{64}$/.test(f.bdfSha256 ?? '')) {
      throw new Error(`${where}: 'bdfSha256' must be 64 hex digits`);
    }
  }
  return table.fonts;
}

/** The parsed font of `entry` (overrides applied for a tuned set); throws naming what is wrong. */
export function loadFont(entry: FontEntry, table: readonly FontEntry[]): BdfFont {
  let font: BdfFont;
  if (entry.file !== undefined) {
    const bytes = readFileSync(`${fontsDir}${entry.file}`);
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== entry.bdfSha256) {
      throw new Error(
        `fonts/${entry.file}: sha256 is ${sha}, fonts/fonts.json says ${String(entry.bdfSha256)}`,
      );
    }
    font = parseBdf(bytes.toString('latin1'));
  } else {
    const source = `fonts/${entry.tuned!}`;
    const tuned = parseTuned(
      readFileSync(`${fontsDir}${entry.tuned!}`, 'utf8'),
      entry.width,
      entry.height,
      source,
    );
    const base = table.find((f) => f.name === tuned.base);
    if (!base || base.file === undefined) {
      throw new Error(`${source}: base '${tuned.base}' is not a BDF font of fonts/fonts.json`);
    }
    font = applyTuned(loadFont(base, table), tuned, source);
  }
  if (font.width !== entry.width || font.height !== entry.height) {
    throw new Error(
      `font '${entry.name}': fonts/fonts.json says ${entry.width}x${entry.height}, ` +
        `the font is ${font.width}x${font.height}`,
    );
  }
  return font;
}

/** The code points a tuned entry overrides (empty for a plain BDF font). */
export function tunedOverrides(entry: FontEntry): Map<number, number[]> {
  if (entry.tuned === undefined) return new Map();
  const source = `fonts/${entry.tuned}`;
  return parseTuned(readFileSync(`${fontsDir}${entry.tuned}`, 'utf8'), entry.width, entry.height, source)
    .overrides;
}

/**
 * The binary atlas of `entry` (docs/renderer.md §6). For a tuned set it also checks that every
 * override reached the atlas as drawn: an override equal to a reserved glyph (the continuation mark or
 * an inverted escape character) would otherwise be silently escaped and the tuning lost.
 */
export function buildEntryAtlas(entry: FontEntry, table: readonly FontEntry[]): Uint8Array {
  const bytes = buildAtlas(loadFont(entry, table), entry.mark);
  if (entry.tuned !== undefined) checkTunedAtlas(bytes, tunedOverrides(entry), `fonts/${entry.tuned}`);
  return bytes;
}

/** Throws unless every override in `overrides` is in the atlas `bytes` exactly as drawn. */
export function checkTunedAtlas(bytes: Uint8Array, overrides: Map<number, number[]>, source: string): void {
  const atlas = decodeAtlas(bytes);
  const { cellWidth: w, cellHeight: h } = atlas;
  for (const [cp, rows] of overrides) {
    const g = glyphOf(atlas, cp);
    const got = g < 0 ? [] : [...atlas.glyphs.subarray(g * h, (g + 1) * h)];
    const want = rows.map((r) => (r << (8 - w)) & 0xff);
    if (got.join() !== want.join()) {
      throw new Error(
        `${source}: override U+${cp.toString(16).toUpperCase().padStart(4, '0')} did not reach the atlas: ` +
          `it equals a reserved glyph (the continuation mark or an inverted escape character)`,
      );
    }
  }
}
