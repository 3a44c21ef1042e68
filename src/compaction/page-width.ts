/**
 * The page a snapshot pass uses, chosen for the text at hand among candidates of every admissible
 * variant (legibility.ts) and width. Area-billed providers (Anthropic's 28-px patches, OpenAI's 32-px
 * patches) charge the same per pixel at any width, but in the `lines` layout a line leaves the rest of
 * its last row blank: prose in short paragraphs wastes half of a 392-column row, so narrower pages
 * can be cheaper. The `flow` layout fills rows completely (a line break is one cell), so its cost
 * depends on the cell pitch only. The candidate whose pages hold the texts in the fewest billed tokens
 * wins. Flat-priced providers have one page per variant.
 */
import { variantCell, variantOf } from '../render/index.js';
import type { PageSpec } from './snapshot.js';

/** Line lengths (code units) of one text, as (length, count) pairs, and its cells in the flow layout. */
export interface LineHistogram {
  lengths: number[];
  counts: number[];
  /** Cells of the text in the flow layout: a code unit each, a line break too (escapes and tabs aside). */
  flowCells: number;
}

/** The line-length histogram of one text. */
export function lineHistogram(text: string): LineHistogram {
  const byLength = new Map<number, number>();
  let start = 0;
  for (;;) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const n = end - start;
    byLength.set(n, (byLength.get(n) ?? 0) + 1);
    if (end >= text.length) break;
    start = end + 1;
  }
  const lengths = [...byLength.keys()];
  return { lengths, counts: lengths.map((n) => byLength.get(n)!), flowCells: text.length };
}

/** Rows a line of `n` cells takes on `cols` columns (docs/renderer.md §4: cols − 1 cells and a mark per full row). */
export function lineRows(n: number, cols: number): number {
  return n <= cols ? 1 : 1 + Math.ceil((n - cols) / (cols - 1));
}

/** Rows a text of this histogram takes on `cols` columns in `layout` (docs/renderer.md §4). */
export function totalRows(h: LineHistogram, cols: number, layout: 'lines' | 'flow' = 'lines'): number {
  if (layout === 'flow') return Math.max(1, Math.ceil(h.flowCells / cols));
  let rows = 0;
  for (let i = 0; i < h.lengths.length; i++) rows += h.counts[i]! * lineRows(h.lengths[i]!, cols);
  return rows;
}

/** A full-height page of one variant and width, with its geometry in cells. */
export interface PageCandidate extends PageSpec {
  cols: number;
  rowsPerPage: number;
  /** Expected character error rate of the variant for the target reader family (ties go to the lower). */
  cer?: number;
}

/**
 * Tokens `texts` cost on pages of candidate `c`, each text on pages of its own with its last page cut
 * to the rows it uses (with `tokensFor`; else a full page).
 */
export function candidateTokens(
  hists: readonly LineHistogram[],
  c: PageCandidate,
  tokensFor?: (width: number, height: number) => number,
): number {
  const layout = c.layout ?? 'lines';
  const cellH = variantCell(variantOf(c)).height;
  let cost = 0;
  for (const h of hists) {
    const rows = totalRows(h, c.cols, layout);
    const full = Math.floor(rows / c.rowsPerPage);
    const rest = rows - full * c.rowsPerPage;
    cost += full * c.tokens;
    if (rest > 0) cost += tokensFor ? tokensFor(c.width, Math.max(2, rest) * cellH) : c.tokens;
  }
  return cost;
}

/**
 * The candidate whose pages hold `texts` in the fewest tokens; ties go to the more legible variant
 * (lower `cer`), then to the wider page.
 */
export function choosePage(
  texts: readonly string[],
  candidates: readonly PageCandidate[],
  tokensFor?: (width: number, height: number) => number,
): PageCandidate {
  if (candidates.length === 0) throw new Error('choosePage: no page candidates');
  if (candidates.length === 1) return candidates[0]!;
  const hists = texts.map(lineHistogram);
  let best = candidates[0]!;
  let bestCost = Infinity;
  for (const c of candidates) {
    const cost = candidateTokens(hists, c, tokensFor);
    const cer = c.cer ?? Infinity;
    const bestCer = best.cer ?? Infinity;
    const better =
      cost < bestCost || (cost === bestCost && (cer < bestCer || (cer === bestCer && c.width > best.width)));
    if (better) {
      best = c;
      bestCost = cost;
    }
  }
  return best;
}
