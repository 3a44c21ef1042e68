/**
 * Rung 3, snapshots: the imaged middle of the plan (plan.ts) is rendered as transcript text onto pages
 * of 5-px glyphs and sent as images. No model call, no key, no network: always available, also during
 * overflow recovery. Pages are rendered from the items' source text on every pass, never from earlier
 * pixels, and the renderer gives the same bytes for the same text, so a rebuilt request hits the cache.
 *
 * A run is imaged only when its pages cost fewer tokens than its text; the page count stays within the
 * profile's per-request image and byte limits (newest runs first; older runs that do not fit are left
 * for the summary rung or omitted, and the report says so).
 */
import type { ImageItem, Item, SummaryItem } from '../transcript/items.js';
import {
  layoutRows,
  normalize,
  variantCell,
  variantId,
  variantOf,
  type CellName,
  type Layout,
  type Spacing,
  type Variant,
} from '../render/index.js';
import { sum } from './elide.js';
import { planSnapshot, type Segment, type SnapshotPlan } from './plan.js';
import { formatItem, formatItems, type ToolInputFormat, type ToolOutputFormat } from './text.js';
import { cutAtOrAfter, validCuts } from './cuts.js';
import { choosePage, type PageCandidate } from './page-width.js';
import type { RungReport } from './types.js';

/**
 * Page geometry, variant and price, from `bestPageShape` of the target profile. Stored in the snapshot
 * record, so it holds everything a replay needs to draw the same bytes.
 */
export interface PageSpec {
  width: number;
  height: number;
  cell: CellName;
  scale: number;
  /** Blank font pixels right of and below every glyph. Absent in records before page variants: none. */
  spacing?: Spacing;
  /** Absent in records before page variants: 'lines'. */
  layout?: Layout;
  /**
   * Canonical variant id of cell, scale, spacing and layout (`5x8+c1+r1`). Every page chosen since page
   * variants has it, and with it a trimmed last page is sized by exact layout rows (`layoutRows`) and
   * the header explains the layout; a record without it replays as it did before (`rowsUpperBound`).
   */
  variant?: string;
  /** Tokens one page costs under the profile's image rule. */
  tokens: number;
  /** The last page of each run is cut to the rows it uses (see `SnapshotOptions.tokensFor`). */
  trim?: boolean;
  /** Deflate effort (render's `compression`); part of the record so a rebuild gives the same bytes. */
  compression?: 'default' | 'fastest';
}

/** What the rung passes to the renderer: render's options (docs/render.md) for one page spec. */
export interface SnapshotRenderOptions {
  shape: { width: number; height: number };
  cell?: CellName;
  scale?: number;
  spacing?: Spacing;
  layout?: Layout;
  compression?: 'default' | 'fastest';
}

/** The two renderer entry points the rung needs (`src/render`: `countPages`, `render`). */
export interface SnapshotRenderer {
  countPages(text: string, options: SnapshotRenderOptions): { pages: number; chars: number };
  render(
    text: string,
    options: SnapshotRenderOptions,
  ): Promise<{ pages: { width: number; height: number; chars: number; png: Uint8Array }[]; bytes: number }>;
}

export interface SnapshotLimits {
  /** Images the request may still carry (profile limit minus images already in it). */
  maxImages: number;
  /** Base64 bytes one image may have. */
  maxBytesPerImage: number;
  /** Base64 bytes all snapshot pages together may have. */
  maxBytes: number;
}

export interface SnapshotOptions {
  page: PageSpec;
  /** Tokens the whole request may have; pages beyond it overflow (to the summary rung). */
  target?: number;
  limits: SnapshotLimits;
  tailBudget: number;
  personBudget: number;
  /** Tokens of a text (for the header items). */
  estimateText: (text: string) => number;
  /**
   * Tokens of a page of any size under the profile's rule. With it, a run's last page is cut to the
   * rows it uses: area-billed providers (Anthropic, OpenAI patches) then charge for those rows only,
   * which is what makes short runs between person messages worth imaging.
   */
  tokensFor?: (width: number, height: number) => number;
  /** Pages of other widths; the pass takes the one that holds its text in the fewest tokens. */
  pages?: readonly PageCandidate[];
}

/** What a snapshot pass decided, in ids: enough to redo it byte for byte (see record.ts). */
export interface SnapshotDecision {
  /** Imaged runs, by first and last item id. */
  runs: { from: string; to: string }[];
  /** Runs that would have been imaged but did not fit the image limits. */
  overflow: { from: string; to: string }[];
  page: PageSpec;
  /**
   * How tool-call inputs are written in the imaged text (text.ts). Every pass writes 'fields'; a record
   * without it is from before the reader layout and replays with 'json'.
   */
  text?: ToolInputFormat;
  /**
   * How tool results are written in the imaged text. Every pass writes 'readable' (known JSON wrappers
   * unwrapped); a record without it is from before and replays 'verbatim'.
   */
  output?: ToolOutputFormat;
}

/** The tool-input format of the text of new snapshot passes. */
export const SNAPSHOT_TEXT: ToolInputFormat = 'fields';
/** The tool-output format of the text of new snapshot passes. */
export const SNAPSHOT_OUTPUT: ToolOutputFormat = 'readable';

export interface RenderedRun {
  from: number;
  to: number;
  items: Item[];
  text: string;
  textTokens: number;
  pages: { width: number; height: number; chars: number; png: Uint8Array }[];
}

const base64 = (png: Uint8Array): string =>
  Buffer.from(png.buffer, png.byteOffset, png.byteLength).toString('base64');

/** The text item that tells the model what the pages that follow are, and how to read them. */
export function snapshotHeader(run: Item[], pages: number, page: PageSpec): string {
  const first = run[0]!;
  const last = run[run.length - 1]!;
  const what = `Transcript of items ${first.id}..${last.id} (turns ${first.turn}-${last.turn}) as ${pages} image${pages === 1 ? '' : 's'}`;
  // A record from before page variants keeps its header word for word (same request bytes on replay).
  if (page.variant === undefined)
    return `${what} of ${page.cell} pixel text; read it as the conversation at this point.`;
  return `${what} of ${page.variant} pixel text; ${readingHint(page.layout ?? 'lines')} Read it as the conversation at this point.`;
}

/**
 * How to read a layout, in words: blind readers did not notice the continuation mark and took wrapped
 * rows for lines cut off at the edge (shared/LEGIBILITY.md), so the header says what the marks mean.
 */
export function readingHint(layout: Layout): string {
  return layout === 'flow'
    ? 'the text runs on: a white-on-black ¶ ends each line and the next line starts right after it; a · stands for a space where spaces could not be counted (indentation, runs of two or more, row ends); rows simply wrap at the right edge and a line may go on into the next row.'
    : 'each line starts a new row; a row that ends in a white-on-black hook in its last column is a long line that continues on the next row.';
}

/** Request items for one imaged run: a header summary item, then one image item per page. */
export function runItems(run: Item[], pages: RenderedRun['pages'], page: PageSpec): Item[] {
  const first = run[0]!;
  const last = run[run.length - 1]!;
  const header: SummaryItem = {
    kind: 'summary',
    author: 'machinery',
    id: `${first.id}~snapshot`,
    parent: first.parent,
    turn: first.turn,
    time: first.time,
    text: snapshotHeader(run, pages.length, page),
    covers: { from: first.id, to: last.id },
  };
  const out: Item[] = [header];
  pages.forEach((p, k) => {
    const img: ImageItem = {
      kind: 'image',
      author: 'machinery',
      id: `${first.id}~page${k + 1}`,
      parent: out[out.length - 1]!.id,
      turn: last.turn,
      time: last.time,
      mediaType: 'image/png',
      data: base64(p.png),
      width: p.width,
      height: p.height,
    };
    out.push(img);
  });
  return out;
}

/**
 * Renders the runs listed in `decision.runs` (by id) and splices them into `items`. Used on replay:
 * `decision.text` absent means a record from before the reader layout ('json'), `decision.output`
 * absent one from before tool outputs were unwrapped ('verbatim').
 */
export async function applySnapshot(
  items: readonly Item[],
  decision: Pick<SnapshotDecision, 'runs' | 'page' | 'text' | 'output'>,
  renderer: SnapshotRenderer,
): Promise<{ items: Item[]; rendered: RenderedRun[] }> {
  const index = new Map(items.map((it, i) => [it.id, i]));
  const spans: { from: number; to: number }[] = [];
  for (const r of decision.runs) {
    const from = index.get(r.from);
    const to = index.get(r.to);
    if (from === undefined || to === undefined || to < from) {
      throw new Error(
        `snapshot: run ${r.from}..${r.to} is not in the path (the record was changed underneath it)`,
      );
    }
    spans.push({ from, to: to + 1 });
  }
  spans.sort((a, b) => a.from - b.from);
  const rendered: RenderedRun[] = [];
  for (const s of spans) {
    const run = items.slice(s.from, s.to);
    const text = formatItems(run, {
      toolInput: decision.text ?? 'json',
      toolOutput: decision.output ?? 'verbatim',
    });
    const pages = await renderPages(text, renderer, decision.page, decision.page.trim === true);
    rendered.push({ from: s.from, to: s.to, items: run, text, textTokens: 0, pages });
  }
  return { items: splice(items, rendered, decision.page), rendered };
}

/** Render options of a page spec; a record from before page variants gives exactly the options it gave then. */
function opts(page: PageSpec): SnapshotRenderOptions {
  return {
    shape: { width: page.width, height: page.height },
    cell: page.cell,
    scale: page.scale,
    ...(page.spacing ? { spacing: page.spacing } : {}),
    ...(page.layout ? { layout: page.layout } : {}),
    ...(page.compression ? { compression: page.compression } : {}),
  };
}

/** The full variant of a page spec (fields absent in older records take their defaults). */
export function pageVariant(page: PageSpec): Variant {
  return variantOf({ cell: page.cell, scale: page.scale, spacing: page.spacing, layout: page.layout });
}

function splice(items: readonly Item[], rendered: readonly RenderedRun[], page: PageSpec): Item[] {
  const out: Item[] = [];
  let at = 0;
  for (const r of rendered) {
    for (let i = at; i < r.from; i++) out.push(items[i]!);
    out.push(...runItems(r.items, r.pages, page));
    at = r.to;
  }
  for (let i = at; i < items.length; i++) out.push(items[i]!);
  return out;
}

export interface SnapshotResult {
  items: Item[];
  tokens: number[];
  plan: SnapshotPlan;
  decision: SnapshotDecision;
  rendered: RenderedRun[];
  /** Overflow runs as index ranges of the input, for the summary rung. */
  overflow: Segment[];
  report: RungReport;
}

/** Plans, counts and renders the snapshot of `items`. `tokens[i]` estimates `items[i]`. */
export async function snapshot(
  items: readonly Item[],
  tokens: readonly number[],
  renderer: SnapshotRenderer,
  options: SnapshotOptions,
): Promise<SnapshotResult> {
  const before = sum(tokens);
  const cuts = validCuts(items);
  let plan = planSnapshot(items, tokens, {
    tailBudget: options.tailBudget,
    personBudget: options.personBudget,
    cuts,
  });
  // Every imaged run costs at least one image; keep the run count well within the image limit by
  // imaging the oldest person messages along with their runs.
  const runLimit = Math.max(1, Math.floor(options.limits.maxImages / 2));
  if (plan.middle.filter((s) => !s.verbatim).length > runLimit) {
    plan = planSnapshot(items, tokens, {
      tailBudget: options.tailBudget,
      personBudget: options.personBudget,
      maxIslands: Math.max(0, runLimit - 1),
      cuts,
    });
  }
  // Choose the page (variant and width) for this pass's text, then count and render with it.
  const texts = new Map<Segment, string>();
  for (const seg of plan.middle)
    if (!seg.verbatim)
      texts.set(
        seg,
        formatItems(items.slice(seg.from, seg.to), { toolInput: SNAPSHOT_TEXT, toolOutput: SNAPSHOT_OUTPUT }),
      );
  const chosenPage =
    options.pages && options.pages.length > 1
      ? choosePage([...texts.values()], options.pages, options.tokensFor)
      : options.page;
  // The record carries the full variant, defaults included, so a replay draws the same bytes.
  const variant = pageVariant(chosenPage);
  const base: PageSpec = {
    width: chosenPage.width,
    height: chosenPage.height,
    cell: variant.cell,
    scale: variant.scale,
    spacing: { x: variant.spacing.x, y: variant.spacing.y },
    layout: variant.layout,
    variant: variantId(variant),
    tokens: chosenPage.tokens,
    ...(options.page.compression ? { compression: options.page.compression } : {}),
  };
  const page: PageSpec = options.tokensFor ? { ...base, trim: true } : base;
  // Count first (no layout), decide, then render only what is imaged.
  const candidates: Candidate[] = [];
  let notWorth = 0;
  const headerTokens = options.estimateText(snapshotHeaderSize) + 4;
  for (const seg of plan.middle) {
    if (seg.verbatim) continue;
    const c = candidate(items, tokens, seg.from, seg.to, renderer, page, options.tokensFor, texts.get(seg));
    if (c.pages === 0 || c.imageTokens + headerTokens >= c.textTokens) {
      notWorth++;
      continue;
    }
    candidates.push(c);
  }
  // Allowance: the image limit, and the tokens the target leaves once everything verbatim is counted.
  let imagedTextTokens = 0;
  for (const c of candidates) imagedTextTokens += c.textTokens;
  const verbatimTokens = before - imagedTextTokens;
  let tokensLeft =
    options.target === undefined
      ? Infinity
      : options.target - verbatimTokens - candidates.length * (headerTokens + OVERFLOW_MARKER_TOKENS);
  let pagesLeft = Math.max(0, options.limits.maxImages);
  // Newest runs get the allowance first: they are the likeliest to be read again. A run that does not
  // fit whole is cut at a valid cut: its newer part is imaged, its older part overflows.
  const chosen: Candidate[] = [];
  const overflow: Segment[] = [];
  for (let k = candidates.length - 1; k >= 0; k--) {
    const c = candidates[k]!;
    if (c.pages <= pagesLeft && c.imageTokens <= tokensLeft) {
      chosen.unshift(c);
      pagesLeft -= c.pages;
      tokensLeft -= c.imageTokens;
      continue;
    }
    const fitPages = Math.min(pagesLeft, Math.floor(tokensLeft / page.tokens));
    const part =
      fitPages > 0
        ? newestPartThatFits(items, tokens, c, fitPages, cuts, renderer, page, options.tokensFor)
        : undefined;
    if (part && part.imageTokens + headerTokens < part.textTokens) {
      chosen.unshift(part);
      overflow.unshift({ from: c.from, to: part.from, verbatim: false });
    } else overflow.unshift({ from: c.from, to: c.to, verbatim: false });
    for (let j = k - 1; j >= 0; j--)
      overflow.unshift({ from: candidates[j]!.from, to: candidates[j]!.to, verbatim: false });
    break;
  }
  const pageTokens = (p: { width: number; height: number }) =>
    p.height === page.height || !options.tokensFor ? page.tokens : options.tokensFor(p.width, p.height);
  const rendered: RenderedRun[] = [];
  let bytes = 0;
  for (const c of chosen) {
    const res = { pages: await renderPages(c.text, renderer, page, options.tokensFor !== undefined) };
    // The worth test counted pages and a typical header; the rendered pages (trimmed) and the real
    // header decide. A run that would cost more as pages than as text stays text.
    const cost =
      options.estimateText(snapshotHeader(items.slice(c.from, c.to), res.pages.length, page)) +
      4 +
      res.pages.reduce((t, p) => t + pageTokens(p), 0);
    if (cost >= c.textTokens) {
      notWorth++;
      continue;
    }
    for (const p of res.pages) {
      const b64 = Math.ceil(p.png.byteLength / 3) * 4;
      if (b64 > options.limits.maxBytesPerImage) {
        throw new Error(
          `snapshot: a page of ${b64} base64 bytes exceeds the profile's ${options.limits.maxBytesPerImage} per image; use a smaller page shape`,
        );
      }
      bytes += b64;
    }
    rendered.push({
      from: c.from,
      to: c.to,
      items: items.slice(c.from, c.to),
      text: c.text,
      textTokens: c.textTokens,
      pages: res.pages,
    });
  }
  while (bytes > options.limits.maxBytes && rendered.length) {
    // Over the request byte limit: give up the oldest runs until it fits.
    const r = rendered.shift()!;
    overflow.unshift({ from: r.from, to: r.to, verbatim: false });
    for (const p of r.pages) bytes -= Math.ceil(p.png.byteLength / 3) * 4;
  }
  overflow.sort((a, b) => a.from - b.from);
  const out = splice(items, rendered, page);
  const outTokens: number[] = [];
  let ri = 0;
  for (let i = 0; i < items.length;) {
    const r = rendered[ri];
    if (r && r.from === i) {
      outTokens.push(options.estimateText(snapshotHeader(r.items, r.pages.length, page)) + 4);
      for (const p of r.pages) outTokens.push(pageTokens(p));
      i = r.to;
      ri++;
    } else outTokens.push(tokens[i++]!);
  }
  const pages = rendered.reduce((s, r) => s + r.pages.length, 0);
  const imageTokens = rendered.reduce((s, r) => s + r.pages.reduce((t, p) => t + pageTokens(p), 0), 0);
  const ids = (s: { from: number; to: number }) => ({ from: items[s.from]!.id, to: items[s.to - 1]!.id });
  const decision: SnapshotDecision = {
    runs: rendered.map(ids),
    overflow: overflow.map(ids),
    page,
    text: SNAPSHOT_TEXT,
    output: SNAPSHOT_OUTPUT,
  };
  const textTokens = rendered.reduce((s, r) => s + r.textTokens, 0);
  const chars = rendered.reduce((s, r) => s + r.text.length, 0);
  const reasonParts: string[] = [];
  if (rendered.length) {
    reasonParts.push(
      `imaged ${rendered.length} runs as ${pages} pages; head ${plan.headEnd} items and tail ${items.length - plan.tailStart} items verbatim; ${plan.personKept} person messages kept verbatim in the middle`,
    );
  } else reasonParts.push('nothing in the middle worth imaging');
  if (plan.personImaged) reasonParts.push(`${plan.personImaged} person messages imaged for lack of budget`);
  if (notWorth) reasonParts.push(`${notWorth} runs kept as text (cheaper than a page)`);
  if (overflow.length) reasonParts.push(`${overflow.length} older runs did not fit the image limits`);
  return {
    items: out,
    tokens: outTokens,
    plan,
    decision,
    rendered,
    overflow,
    report: {
      rung: 'snapshot',
      applied: rendered.length > 0,
      tokensBefore: before,
      tokensAfter: sum(outTokens),
      items: rendered.flatMap((r) => r.items.map((i) => i.id)),
      reason: reasonParts.join('; '),
      details: { pages, runs: rendered.length, chars, textTokens, imageTokens, bytes },
    },
  };
}

interface Candidate {
  from: number;
  to: number;
  text: string;
  pages: number;
  textTokens: number;
  imageTokens: number;
}

/** Tokens an overflow stretch costs at least in the request (an omission marker or a summary's heading). */
const OVERFLOW_MARKER_TOKENS = 0;

function candidate(
  items: readonly Item[],
  tokens: readonly number[],
  from: number,
  to: number,
  renderer: SnapshotRenderer,
  page: PageSpec,
  tokensFor?: (width: number, height: number) => number,
  known?: string,
): Candidate {
  const text = known ?? formatItems(items.slice(from, to));
  let textTokens = 0;
  for (let i = from; i < to; i++) textTokens += tokens[i]!;
  const { pages, imageTokens } = pageCost(text, page, tokensFor);
  return { from, to, text, pages, textTokens, imageTokens };
}

/** Cell pitch in pixels: font cell plus spacing, at the page's scale. */
function pitch(page: PageSpec): { width: number; height: number } {
  return variantCell(pageVariant(page));
}

/** Cell height in pixels (the row pitch). */
function cellHeight(page: PageSpec): number {
  return pitch(page).height;
}

/**
 * Rows `text` takes on a page's columns: exact (`layoutRows`, in the page's layout) for pages chosen
 * since page variants; `rowsUpperBound` for a record from before, whose trimmed last page must keep
 * the height it had then.
 */
export function pageRows(text: string, page: PageSpec, cols: number = pageCols(page)): number {
  if (page.variant === undefined) return rowsUpperBound(text, cols);
  return layoutRows(text, { cols, cell: page.cell, layout: page.layout ?? 'lines' });
}

/**
 * An upper bound on the rows `text` takes on `cols` columns (docs/renderer.md §1, §4), in one pass
 * without layout: a tab counts 4 cells, anything outside printable ASCII counts as a 7-cell escape
 * (`U+XXXXX`), `\r` as a line break. Planning uses it so that only the pages actually sent are laid out.
 */
export function rowsUpperBound(text: string, cols: number): number {
  let rows = 0;
  let cells = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      rows += cells <= cols ? 1 : 1 + Math.ceil((cells - cols) / (cols - 1));
      cells = 0;
    } else if (c >= 32 && c < 127) cells++;
    else if (c === 9) cells += 4;
    else if (c >= 0xdc00 && c <= 0xdfff && i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800) continue;
    else cells += 7;
  }
  rows += cells <= cols ? 1 : 1 + Math.ceil((cells - cols) / (cols - 1));
  return rows;
}

/** Columns of a page. */
function pageCols(page: PageSpec): number {
  return Math.floor(page.width / pitch(page).width);
}

/**
 * Pages and image tokens of `text` (rows from `pageRows`): full pages, and with
 * `tokensFor` a last page cut to its rows.
 */
export function pageCost(
  text: string,
  page: PageSpec,
  tokensFor?: (width: number, height: number) => number,
): { pages: number; imageTokens: number } {
  if (text.length === 0) return { pages: 0, imageTokens: 0 };
  const ch = cellHeight(page);
  const perPage = Math.floor(page.height / ch);
  const rows = pageRows(text, page);
  const pages = Math.ceil(rows / perPage);
  if (!tokensFor) return { pages, imageTokens: pages * page.tokens };
  const lastRows = Math.max(2, rows - (pages - 1) * perPage);
  return { pages, imageTokens: (pages - 1) * page.tokens + tokensFor(page.width, lastRows * ch) };
}

/** The code-point offset `count` code points into `text`, as a UTF-16 index. */
function codePointIndex(text: string, count: number): number {
  let i = 0;
  for (let n = 0; n < count && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i +=
      c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
        ? 2
        : 1;
  }
  return i;
}

/**
 * Renders `text` on full pages, then redraws the last page at the height its rows need (same width,
 * same cell): the redraw starts at a row boundary, so decoding all pages still gives `normalize(text)`.
 */
export async function renderPages(
  text: string,
  renderer: SnapshotRenderer,
  page: PageSpec,
  trim: boolean,
): Promise<RenderedRun['pages']> {
  if (!trim) return (await renderer.render(text, opts(page))).pages;
  const ch = cellHeight(page);
  const perPage = Math.floor(page.height / ch);
  const cols = pageCols(page);
  // Rows that surely hold `t`, or undefined when it may need a full page or more.
  const rowsFor = (t: string): number | undefined => {
    const rows = Math.max(2, pageRows(t, page, cols));
    return rows < perPage ? rows : undefined;
  };
  const short = async (t: string, rows: number) =>
    (await renderer.render(t, { ...opts(page), shape: { width: page.width, height: rows * ch } })).pages;
  // Most runs between person messages fit one short page: draw that page only.
  const single = rowsFor(text);
  if (single !== undefined) return short(text, single);
  const pages = (await renderer.render(text, opts(page))).pages;
  if (pages.length === 0) return pages;
  const normalized = normalize(text);
  let before = 0;
  for (let k = 0; k < pages.length - 1; k++) before += pages[k]!.chars;
  const rest = normalized.slice(codePointIndex(normalized, before));
  const rows = rowsFor(rest);
  if (rows === undefined) return pages;
  const last = await short(rest, rows);
  return last.length === 1 ? [...pages.slice(0, -1), last[0]!] : pages;
}

/**
 * The newest part of run `c` that fits `pages` pages, starting at a valid cut; undefined when none.
 * First guess by characters (pages × the run's characters per page), then step the cut forward.
 */
function newestPartThatFits(
  items: readonly Item[],
  tokens: readonly number[],
  c: Candidate,
  pages: number,
  cuts: Uint8Array,
  renderer: SnapshotRenderer,
  page: PageSpec,
  tokensFor?: (width: number, height: number) => number,
): Candidate | undefined {
  const charsPerPage = c.text.length / Math.max(1, c.pages);
  let allowance = pages * charsPerPage * 0.97;
  let start = c.to;
  while (start > c.from && allowance > 0) {
    start--;
    allowance -= formatItem(items[start]!).length + 1;
  }
  for (let attempt = 0; attempt < 8; attempt++) {
    start = cutAtOrAfter(cuts, start);
    if (start >= c.to) return undefined;
    const part = candidate(items, tokens, start, c.to, renderer, page, tokensFor);
    if (part.pages <= pages) return part;
    // Skip ahead by the share of characters that are too many, at least one item. (Stepping one past
    // the skipped-to item as well would jump over the cut right there: a run of one long message and
    // a call with its result then overflowed whole although the call and result fit.)
    const excess = (part.pages - pages) * charsPerPage;
    const from = start;
    let skipped = 0;
    while (start < c.to - 1 && skipped < excess) skipped += formatItem(items[start++]!).length + 1;
    if (start === from) start++;
  }
  return undefined;
}

/** A header of typical length, for the worth-it test before the real header is known. */
const snapshotHeaderSize = `<summary from="i000001" to="i000002">Transcript of items i000001..i000002 (turns 10-20) as 10 images of 5x8+c1+r1 pixel text; ${readingHint('lines')} Read it as the conversation at this point.</summary>`;
