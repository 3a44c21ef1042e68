/**
 * Tuned glyph sets (fonts/tuned/*.txt): a base font plus pixel-art overrides for the glyphs machine
 * readers confuse. Parsed and applied at build time (scripts/build-fonts.ts) and in tests; pure, no I/O.
 *
 * Format, one item per line: `base <font name>` once; then per glyph a header `U+XXXX` (optionally
 * followed by the character itself, for the reader) and exactly `height` rows of `width` characters,
 * `#` = ink, `.` = blank. Lines starting with `//` and blank lines are ignored.
 */
import type { BdfFont } from './bdf.js';

export interface TunedSet {
  base: string;
  /** Code point → `height` row numbers, leftmost pixel in the most significant of `width` bits. */
  overrides: Map<number, number[]>;
}

/** Parses a tuned set for a `width` × `height` cell; throws an Error naming `source`, the line and the flaw. */
export function parseTuned(text: string, width: number, height: number, source: string): TunedSet {
  const lines = text.split('\n');
  let base: string | undefined;
  const overrides = new Map<number, number[]>();
  const fail = (i: number, msg: string): never => {
    throw new Error(`${source}:${i + 1}: ${msg}`);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    if (line === '' || line.startsWith('//')) continue;
    const baseMatch = /^base\s+(\S+)$/.exec(line);
    if (baseMatch) {
      if (base !== undefined) fail(i, `second 'base' line (first said '${base}')`);
      base = baseMatch[1]!;
      continue;
    }
    const head = /^U\+([0-9A-Fa-f]{4,6})(?:\s.*)?$/.exec(line);
    if (!head) fail(i, `expected 'base NAME' or a glyph header 'U+XXXX', found '${line}'`);
    const cp = parseInt(head![1]!, 16);
    if (overrides.has(cp)) fail(i, `U+${head![1]} is overridden twice`);
    const rows: number[] = [];
    for (let r = 0; r < height; r++) {
      const at = i + 1 + r;
      const row = (lines[at] ?? '').trimEnd();
      if (row.length !== width || !/^[.#]+$/.test(row)) {
        fail(at, `U+${head![1]} row ${r + 1} of ${height}: expected ${width} of '.'/'#', found '${row}'`);
      }
      rows.push([...row].reduce((bits, ch) => (bits << 1) | (ch === '#' ? 1 : 0), 0));
    }
    overrides.set(cp, rows);
    i += height;
  }
  if (base === undefined) throw new Error(`${source}: no 'base NAME' line`);
  return { base, overrides };
}

/**
 * The base font with the overrides applied (a new font; the base is not changed). Each overridden
 * glyph must exist in the base and differ from every other glyph of the result, because two equal
 * bitmaps would make one of the code points an escape (docs/renderer.md §6) and defeat the tuning.
 */
export function applyTuned(font: BdfFont, tuned: TunedSet, source: string): BdfFont {
  const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const glyphs = font.glyphs.map((g) => {
    const rows = tuned.overrides.get(g.codePoint);
    return rows ? { ...g, rows: [...rows] } : g;
  });
  const present = new Set(font.glyphs.map((g) => g.codePoint));
  for (const cp of tuned.overrides.keys()) {
    if (!present.has(cp)) throw new Error(`${source}: ${hex(cp)} is not in base font '${tuned.base}'`);
  }
  const byBitmap = new Map<string, number[]>();
  for (const g of glyphs) {
    const k = g.rows.join(',');
    const list = byBitmap.get(k);
    if (list) list.push(g.codePoint);
    else byBitmap.set(k, [g.codePoint]);
  }
  for (const cp of tuned.overrides.keys()) {
    const same = byBitmap.get(tuned.overrides.get(cp)!.join(','))!.filter((c) => c !== cp);
    if (same.length > 0) {
      throw new Error(
        `${source}: override ${hex(cp)} '${String.fromCodePoint(cp)}' is identical to ` +
          same.map((c) => `${hex(c)} '${String.fromCodePoint(c)}'`).join(', '),
      );
    }
  }
  return { width: font.width, height: font.height, glyphs };
}
