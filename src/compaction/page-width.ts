/**
 * Page width chosen for the text at hand. Area-billed providers (Anthropic's 28-px patches, OpenAI's
 * 32-px patches) charge the same per pixel at any width, but a line of text leaves the rest of its last
 * row blank: prose in short paragraphs wastes half of a 392-column row. So the snapshot rung picks,
 * among full-height pages of every width on the billing grid, the one whose rows hold this text in
 * the fewest billed tokens. Flat-priced providers keep their one best page.
 */
import { cellSize } from '../render/index.js';
import type { PageSpec } from './snapshot.js';

/** Line lengths (code units) of texts, as a histogram; long lines are kept individually. */
export interface LineHistogram {
  counts: Uint32Array;
  long: number[];
}

const BUCKETS = 4096;

export function lineHistogram(texts: readonly string[]): LineHistogram {
  const counts = new Uint32Array(BUCKETS);
  const long: number[] = [];
  for (const text of texts) {
    let start = 0;
    for (;;) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const n = end - start;
      if (n < BUCKETS) counts[n]!++;
      else long.push(n);
      if (end >= text.length) break;
      start = end + 1;
    }
  }
  return { counts, long };
}

/** Rows a line of `n` cells takes on `cols` columns (docs/renderer.md §4: cols − 1 cells and a mark per full row). */
export function lineRows(n: number, cols: number): number {
  return n <= cols ? 1 : 1 + Math.ceil((n - cols) / (cols - 1));
}

/** Rows all lines of the histogram take on `cols` columns. */
export function totalRows(h: LineHistogram, cols: number): number {
  let rows = 0;
  for (let n = 0; n < BUCKETS; n++) {
    const c = h.counts[n]!;
    if (c) rows += c * lineRows(n, cols);
  }
  for (const n of h.long) rows += lineRows(n, cols);
  return rows;
}

/** A full-height page of one width, with its geometry in cells. */
export interface PageCandidate extends PageSpec {
  cols: number;
  rowsPerPage: number;
}

/**
 * The candidate whose pages hold `texts` in the fewest tokens (counting the last page of each text as
 * cut to its rows), ties to the wider page.
 */
export function choosePage(
  texts: readonly string[],
  candidates: readonly PageCandidate[],
  tokensFor?: (width: number, height: number) => number,
): PageCandidate {
  if (candidates.length === 0) throw new Error('choosePage: no page candidates');
  if (candidates.length === 1) return candidates[0]!;
  const h = lineHistogram(texts);
  let best = candidates[0]!;
  let bestCost = Infinity;
  for (const c of candidates) {
    const rows = totalRows(h, c.cols);
    const full = Math.floor(rows / c.rowsPerPage);
    const rest = rows - full * c.rowsPerPage;
    const cellH = cellSize(c.cell, c.scale).height;
    const lastTokens = rest === 0 ? 0 : tokensFor ? tokensFor(c.width, Math.max(2, rest) * cellH) : c.tokens;
    const cost = full * c.tokens + lastTokens;
    if (cost < bestCost || (cost === bestCost && c.width > best.width)) {
      best = c;
      bestCost = cost;
    }
  }
  return best;
}
