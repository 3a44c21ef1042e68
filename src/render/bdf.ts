/**
 * A small parser for the Glyph Bitmap Distribution Format (Adobe BDF 2.1), enough for the X11
 * misc-fixed fonts in `fonts/`: the font bounding box and each glyph's ENCODING, BBX and BITMAP.
 * Runs at build time (scripts/build-fonts.ts) and in tests; it imports nothing, so it stays edge-safe.
 */

/** One glyph placed in the font bounding box: `rows[y]` holds the cell row `y` (top first). */
export interface BdfGlyph {
  name: string;
  codePoint: number;
  /**
   * `height` numbers, one per cell row, each `width` bits wide with the leftmost pixel in the most
   * significant of those bits; `1` = ink. Pixels outside the glyph's own BBX are background.
   */
  rows: number[];
}

export interface BdfFont {
  /** Cell size: the FONTBOUNDINGBOX width and height. */
  width: number;
  height: number;
  glyphs: BdfGlyph[];
}

/** A malformed BDF file; the message names the line (1-based) and what was expected there. */
export class BdfError extends Error {
  override name = 'BdfError';
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`BDF line ${line}: ${message}`);
  }
}

function ints(fields: string[], count: number, what: string, line: number): number[] {
  if (fields.length !== count) {
    throw new BdfError(`${what} expects ${count} integers, found ${fields.length}`, line);
  }
  return fields.map((f) => {
    if (!/^-?\d+$/.test(f)) throw new BdfError(`${what}: expected an integer, found '${f}'`, line);
    return Number(f);
  });
}

/**
 * Parses BDF text. Glyphs with `ENCODING -1` (unencoded) are skipped. Each glyph's bitmap is moved
 * to its place in the font bounding box using its BBX offsets (baseline-relative, as the format says),
 * so every returned glyph is exactly `width × height`. Throws a {@link BdfError} naming the line.
 */
export function parseBdf(text: string): BdfFont {
  const lines = text.split(/\r?\n/);
  let box: { w: number; h: number; x: number; y: number } | undefined;
  const glyphs: BdfGlyph[] = [];
  let i = 0;

  const fieldsAt = (index: number): string[] => (lines[index] ?? '').trim().split(/\s+/);

  while (i < lines.length) {
    const fields = fieldsAt(i);
    const keyword = fields[0];
    if (i === 0 && keyword !== 'STARTFONT') {
      throw new BdfError(`expected STARTFONT, found '${lines[0]?.slice(0, 40) ?? ''}'`, 1);
    }
    if (keyword === 'FONTBOUNDINGBOX') {
      const [w, h, x, y] = ints(fields.slice(1), 4, 'FONTBOUNDINGBOX', i + 1) as [
        number,
        number,
        number,
        number,
      ];
      if (w < 1 || w > 8 || h < 1 || h > 32) {
        throw new BdfError(`FONTBOUNDINGBOX ${w}x${h}: cells must be 1–8 pixels wide and 1–32 high`, i + 1);
      }
      box = { w, h, x, y };
    } else if (keyword === 'STARTCHAR') {
      if (!box) throw new BdfError('STARTCHAR before FONTBOUNDINGBOX', i + 1);
      const startLine = i + 1;
      const name = fields.slice(1).join(' ');
      let codePoint: number | undefined;
      let bbx: number[] | undefined;
      let rows: number[] | undefined;
      i++;
      for (;;) {
        if (i >= lines.length) throw new BdfError(`glyph '${name}' has no ENDCHAR`, startLine);
        const f = fieldsAt(i);
        const k = f[0];
        if (k === 'ENCODING') {
          codePoint = ints(f.slice(1, 2), 1, 'ENCODING', i + 1)[0];
        } else if (k === 'BBX') {
          bbx = ints(f.slice(1), 4, 'BBX', i + 1);
        } else if (k === 'BITMAP') {
          if (!bbx) throw new BdfError(`glyph '${name}': BITMAP before BBX`, i + 1);
          const [bw, bh, bx, by] = bbx as [number, number, number, number];
          // Glyph box in cell coordinates: left = bx - box.x, top = (box.h + box.y) - (by + bh).
          const left = bx - box.x;
          const top = box.h + box.y - (by + bh);
          if (bw < 0 || bh < 0 || left < 0 || top < 0 || left + bw > box.w || top + bh > box.h) {
            throw new BdfError(
              `glyph '${name}': BBX ${bw} ${bh} ${bx} ${by} lies outside FONTBOUNDINGBOX ` +
                `${box.w} ${box.h} ${box.x} ${box.y}`,
              i + 1,
            );
          }
          const bytesPerRow = Math.ceil(bw / 8);
          rows = new Array<number>(box.h).fill(0);
          for (let r = 0; r < bh; r++) {
            i++;
            const hex = (lines[i] ?? '').trim();
            if (hex.length !== bytesPerRow * 2 || !/^[0-9A-Fa-f]+$/.test(hex)) {
              throw new BdfError(
                `glyph '${name}': bitmap row ${r + 1} of ${bh}: expected ${bytesPerRow * 2} hex digits, found '${hex}'`,
                i + 1,
              );
            }
            // Left-aligned in bytesPerRow bytes; keep the glyph's bw leftmost bits, then place them.
            const bits = parseInt(hex, 16) >>> (bytesPerRow * 8 - bw);
            rows[top + r] = bits << (box.w - left - bw);
          }
        } else if (k === 'ENDCHAR') {
          if (codePoint === undefined) throw new BdfError(`glyph '${name}' has no ENCODING`, i + 1);
          if (!rows) throw new BdfError(`glyph '${name}' has no BITMAP`, i + 1);
          if (codePoint >= 0) glyphs.push({ name, codePoint, rows });
          break;
        } else if (k === 'STARTCHAR' || k === 'ENDFONT') {
          throw new BdfError(`glyph '${name}' (line ${startLine}) ends without ENDCHAR`, i + 1);
        }
        i++;
      }
    } else if (keyword === 'ENDFONT') {
      break;
    }
    i++;
  }
  if (!box) throw new BdfError('no FONTBOUNDINGBOX', lines.length);
  return { width: box.w, height: box.h, glyphs };
}
