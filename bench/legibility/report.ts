/**
 * The report: every results file under bench/legibility/results/ aggregated per variant, with the
 * price of each variant in image tokens per 1,000 characters of real agent text. The price is
 * measured by laying out the middle third of examples/session.claude.jsonl, formatted as the snapshot
 * rung formats it (`formatItems`), at the variant's columns, cut into pages of at most
 * MAX_PAGE_HEIGHT pixels (the last page as tall as its rows).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { formatItems } from '../../src/compaction/text.js';
import { normalize, parseVariant } from '../../src/render/index.js';
import type { TableSource } from './table.js';
import { importTranscript } from '../../src/transcript/import/index.js';
import { CONTENT_KINDS, NEEDLE_KINDS } from './generate.js';
import { aggregate, RESULTS_FORMAT, type Aggregate, type Results } from './score.js';
import { MAX_PAGE_HEIGHT, benchVariant, variantRows } from './variant.js';

export const RESULTS_DIR = join(import.meta.dirname, 'results');
const SESSION = join(import.meta.dirname, '../../examples/session.claude.jsonl');

/** Claude: 28-px patches, one token each. */
export const claudeTokens = (w: number, h: number): number => Math.ceil(w / 28) * Math.ceil(h / 28);
/** OpenAI gpt-5.x at `high`: 32-px patches × 1.2. */
export const openaiTokens = (w: number, h: number): number =>
  Math.ceil(Math.ceil(w / 32) * Math.ceil(h / 32) * 1.2 - 1e-9);

/** The real text the price is measured on: the middle third of the example session's items. */
export function realText(): string {
  const { items } = importTranscript(readFileSync(SESSION, 'utf8'));
  const third = Math.floor(items.length / 3);
  return normalize(formatItems(items.slice(third, items.length - third)));
}

export interface Price {
  cols: number;
  pages: number;
  chars: number;
  claudePer1k: number;
  openaiPer1k: number;
  /** Page fill: characters per cell of the rows used (an escape takes several cells). */
  fill: number;
}

/** Image tokens per 1,000 characters of `text` laid out in `variantId`. */
export function price(variantId: string, text: string): Price {
  const v = benchVariant(variantId);
  const rows = variantRows(text, v);
  const pageRows = Math.floor(MAX_PAGE_HEIGHT / v.pitch.height);
  const width = v.cols * v.pitch.width;
  let claude = 0;
  let openai = 0;
  let pages = 0;
  for (let left = rows; left > 0; left -= pageRows) {
    const h = Math.min(left, pageRows) * v.pitch.height;
    claude += claudeTokens(width, h);
    openai += openaiTokens(width, h);
    pages++;
  }
  const chars = [...text].length;
  return {
    cols: v.cols,
    pages,
    chars,
    claudePer1k: (claude / chars) * 1000,
    openaiPer1k: (openai / chars) * 1000,
    fill: chars / (rows * v.cols),
  };
}

export interface ReportRow {
  variant: string;
  readers: number;
  files: string[];
  aggregate: Aggregate;
  price: Price;
}

/** Reads every results file in `dir` and aggregates per variant. */
/**
 * One row per variant over the results files in `dir`, or over `sources` (files, each optionally
 * limited to one layout: `round1.json:lines`, as `legibility table` takes them).
 */
export function report(dir = RESULTS_DIR, sources?: readonly TableSource[]): ReportRow[] {
  const chosen: TableSource[] = sources
    ? [...sources]
    : readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => ({ file: join(dir, f) }));
  const per = new Map<
    string,
    { readers: Set<string>; files: Set<string>; scores: Results['images'][number]['score'][] }
  >();
  for (const src of chosen) {
    const f = basename(src.file);
    const r = JSON.parse(readFileSync(src.file, 'utf8')) as Results;
    if (r.format !== RESULTS_FORMAT)
      throw new Error(`report: ${f}: format expected '${RESULTS_FORMAT}', found '${String(r.format)}'`);
    for (const im of r.images) {
      if (src.layout && parseVariant(im.variant).layout !== src.layout) continue;
      const e = per.get(im.variant) ?? { readers: new Set(), files: new Set(), scores: [] };
      // A reader counts where they answered; unanswered images still count as 100% error.
      if (!im.score.missing) e.readers.add(`${f}#${im.reader}`);
      e.files.add(f);
      e.scores.push(im.score);
      per.set(im.variant, e);
    }
  }
  const text = per.size > 0 ? realText() : '';
  return [...per].map(([variant, e]) => ({
    variant,
    readers: e.readers.size,
    files: [...e.files],
    aggregate: aggregate(e.scores),
    price: price(variant, text),
  }));
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The markdown table of `rows`. */
export function markdown(rows: readonly ReportRow[]): string {
  const head = [
    'variant',
    'readers',
    'chars read',
    'CER all',
    ...CONTENT_KINDS,
    'exact lines',
    'needles',
    ...NEEDLE_KINDS.map((k) => `needle ${k}`),
    'Claude tok/1k chars',
    'gpt-5.x high tok/1k chars',
    'page fill',
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    const a = r.aggregate;
    lines.push(
      `| ${[
        r.variant,
        r.readers,
        a.chars,
        pct(a.cer),
        ...CONTENT_KINDS.map((k) => pct(a.byKind[k].cer)),
        pct(a.lines.rate),
        `${a.needles.all.found}/${a.needles.all.total}`,
        ...NEEDLE_KINDS.map((k) => pct(a.needles[k].recall)),
        r.price.claudePer1k.toFixed(1),
        r.price.openaiPer1k.toFixed(1),
        pct(r.price.fill),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** Readings pooled by how densely their pages packed characters into Claude image tokens. */
export interface DensityRow {
  /** Characters per image token, lower bound of the band (inclusive). */
  from: number;
  /** Upper bound (exclusive); Infinity for the last band. */
  to: number;
  readings: number;
  chars: number;
  cer: number;
  /** `file#variant` groups in the band, with their own chars per token. */
  variants: string[];
}

/** Band edges in characters per image token; text costs about 4 characters per token. */
export const DENSITY_BANDS = [0, 6, 7, 8, 10, 11, 13, 15, Infinity] as const;

/**
 * Every reading of every results file in `dir`, by the density of the pages it read: characters of
 * source per Claude image token of the PNGs the reader saw (28-px patches). The question this answers
 * is whether legibility follows the glyphs and the layout, or how much text each token must carry.
 */
export function density(dir = RESULTS_DIR): DensityRow[] {
  const groups = new Map<string, { chars: number; distance: number; tokens: number; readings: number }>();
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Results;
    for (const im of r.images) {
      if (im.score.missing) continue;
      const key = `${f.replace(/\.json$/, '')}#${im.variant}`;
      const g = groups.get(key) ?? { chars: 0, distance: 0, tokens: 0, readings: 0 };
      g.chars += im.score.chars;
      g.distance += im.score.distance;
      g.tokens += im.heights.reduce((sum, h) => sum + claudeTokens(im.width, h), 0);
      g.readings++;
      groups.set(key, g);
    }
  }
  const rows: DensityRow[] = [];
  for (let b = 0; b + 1 < DENSITY_BANDS.length; b++) {
    const [from, to] = [DENSITY_BANDS[b]!, DENSITY_BANDS[b + 1]!];
    const row: DensityRow = { from, to, readings: 0, chars: 0, cer: 0, variants: [] };
    let distance = 0;
    for (const [key, g] of groups) {
      const perToken = g.chars / g.tokens;
      if (perToken < from || perToken >= to) continue;
      row.readings += g.readings;
      row.chars += g.chars;
      distance += g.distance;
      row.variants.push(`${key} (${perToken.toFixed(1)})`);
    }
    row.cer = row.chars ? distance / row.chars : 0;
    if (row.readings) rows.push(row);
  }
  return rows;
}

/** The markdown table of `rows`. */
export function densityMarkdown(rows: readonly DensityRow[]): string {
  const lines = [
    '| chars per image token | readings | chars read | CER | fewer tokens than text at 4 chars/token |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const x = (n: number) => `${(n / 4).toFixed(1)}×`;
    const [band, ratio] =
      r.to === Infinity
        ? [`≥ ${r.from}`, `≥ ${x(r.from)}`]
        : r.from === 0
          ? [`< ${r.to}`, `< ${x(r.to)}`]
          : [`${r.from}–${r.to}`, `${x(r.from)}–${x(r.to)}`];
    lines.push(`| ${band} | ${r.readings} | ${r.chars} | ${pct(r.cer)} | ${ratio} |`);
  }
  return lines.join('\n');
}
