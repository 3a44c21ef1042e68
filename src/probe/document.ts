/**
 * The probe document: pages of prose and code, each exactly filled, with needles planted at spread
 * positions. Pages are filled by the layout rule of docs/renderer.md §4 (a line of n cells takes one
 * row if n ≤ cols, else cols − 1 cells per row plus a continuation mark), and the result is checked
 * against the renderer's own `countPages`.
 */
import { paragraph, snippet } from './corpus.js';
import { NEEDLE_KINDS, needleValue, type Needle, type NeedleKind } from './needles.js';
import { rng, type Rng } from './random.js';

export interface ProbeDocument {
  text: string;
  needles: Needle[];
}

export interface DocumentOptions {
  seed: number;
  pages: number;
  /** Page grid, from the page shape and cell. */
  cols: number;
  rows: number;
  /** Needles per page; kinds cycle code, number, identifier, quote. */
  needlesPerPage: number;
}

/** Rows a line of `n` cells (ASCII: one cell per character) takes; docs/renderer.md §4. */
export function rowsOf(n: number, cols: number): number {
  return n <= cols ? 1 : 1 + Math.ceil((n - cols) / (cols - 1));
}

/** How a needle sits in prose (a sentence) or in code (an assignment or a comment). */
function inProse(n: Needle): string {
  return n.kind === 'quote' ? `Note ${n.label} said: "${n.value}"` : `Reference ${n.label} is ${n.value}.`;
}
function inCode(n: Needle): string {
  return n.kind === 'quote'
    ? `    // ${n.label} said: "${n.value}"`
    : `    const ${n.label} = ${n.kind === 'number' ? n.value : `'${n.value}'`};`;
}

/** One block (a paragraph or a snippet) as lines, with `needle` planted inside when given. */
function block(r: Rng, needle: Needle | undefined): string[] {
  if (r.next() < 0.6) {
    const sentences = paragraph(r);
    if (needle) sentences.splice(r.int(1, sentences.length), 0, inProse(needle));
    return [sentences.join(' '), ''];
  }
  const lines = snippet(r);
  if (needle) lines.splice(r.int(1, lines.length - 1), 0, inCode(needle));
  return [...lines, ''];
}

/** Cuts a prose line at a word boundary so it takes at most `rows` rows. */
function cutToRows(line: string, rows: number, cols: number): string {
  const capacity = rows === 1 ? cols : cols + (rows - 1) * (cols - 1);
  if (line.length <= capacity) return line;
  const cut = line.lastIndexOf(' ', capacity);
  return line.slice(0, cut > 0 ? cut : capacity).trimEnd();
}

/** Builds the document; throws a RangeError when a page is too small for its needles. */
export function buildDocument(options: DocumentOptions): ProbeDocument {
  const { seed, pages, cols, rows, needlesPerPage } = options;
  if (cols < 40) throw new RangeError(`page is ${cols} columns wide; the probe needs at least 40`);
  if (rows < needlesPerPage * 2) {
    throw new RangeError(
      `page has ${rows} rows; ${needlesPerPage} needles per page need at least ${needlesPerPage * 2}`,
    );
  }
  const r = rng(seed);
  const needles: Needle[] = [];
  const pageTexts: string[] = [];
  for (let page = 1; page <= pages; page++) {
    const planned: Needle[] = Array.from({ length: needlesPerPage }, (_, i) => {
      const kind: NeedleKind = NEEDLE_KINDS[(needles.length + i) % NEEDLE_KINDS.length]!;
      return {
        label: `N${String(needles.length + i + 1).padStart(2, '0')}`,
        kind,
        value: needleValue(kind, r),
        page,
      };
    });
    const lines: string[] = [];
    let used = 0;
    let planted = 0;
    // Spread needles over the page: the next one goes into the first block starting past its mark.
    const mark = (i: number) => Math.floor((i * rows) / (needlesPerPage + 1));
    const cost = (lines: string[]) => lines.reduce((sum, line) => sum + rowsOf(line.length, cols), 0);
    // Rows kept free so every needle not yet planted still fits, alone on a line if need be.
    const reserve = (from: number) => planned.slice(from).reduce((sum, n) => sum + cost([inProse(n)]), 0);
    while (used < rows) {
      let needle = planted < planned.length && used >= mark(planted) ? planned[planted] : undefined;
      let next = block(r, needle);
      const free = rows - used - reserve(planted + (needle ? 1 : 0));
      if (cost(next) > free) {
        if (planted < planned.length) {
          needle = planned[planted]!;
          next = [inProse(needle)];
        } else if (next.length === 2) {
          next = [cutToRows(next[0]!, rows - used, cols)];
        } else {
          next = next.filter((line) => line.length <= cols).slice(0, rows - used);
        }
      }
      if (used + cost(next) > rows) break;
      if (needle) planted++;
      lines.push(...next);
      used += cost(next);
    }
    if (planted < planned.length) {
      throw new RangeError(`page ${page} (${cols}x${rows} cells) has no room for ${planned.length} needles`);
    }
    needles.push(...planned);
    // Blank rows keep the next page's first line on the next page.
    while (used < rows) {
      lines.push('');
      used++;
    }
    pageTexts.push(lines.join('\n'));
  }
  return { text: pageTexts.join('\n'), needles };
}
