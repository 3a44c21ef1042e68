/**
 * Scoring transcriptions against their sources: CER overall and per content kind, exact-line rate,
 * needle recall by kind. A missing transcription counts as 100% error (every character deleted).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalize } from '../../src/render/index.js';
import { align } from './align.js';
import {
  CONTENT_KINDS,
  NEEDLE_KINDS,
  kindsOf,
  type ContentKind,
  type NeedleKind,
  type ReadingText,
} from './generate.js';
import { KEY_FORMAT, type KitImage, type KitKey } from './kit.js';
import { benchVariant } from './variant.js';

export const RESULTS_FORMAT = 'glyphfold-legibility-results';

export interface Tally {
  /** Source code points. */
  chars: number;
  /** Edits attributed to them. */
  edits: number;
}

export interface ImageScore {
  missing: boolean;
  chars: number;
  distance: number;
  cer: number;
  byKind: Record<ContentKind, Tally>;
  /** Non-empty source lines, and how many came back exactly (no edit on the line or its newline). */
  lines: { total: number; exact: number };
  needles: Record<NeedleKind, { total: number; found: number }>;
  /** Needle values not found near their place. */
  missed: string[];
}

export interface Aggregate {
  images: number;
  missing: number;
  chars: number;
  distance: number;
  cer: number;
  byKind: Record<ContentKind, Tally & { cer: number }>;
  lines: { total: number; exact: number; rate: number };
  needles: Record<NeedleKind | 'all', { total: number; found: number; recall: number }>;
}

const emptyKinds = () =>
  Object.fromEntries(CONTENT_KINDS.map((k) => [k, { chars: 0, edits: 0 }])) as Record<ContentKind, Tally>;
const emptyNeedles = () =>
  Object.fromEntries(NEEDLE_KINDS.map((k) => [k, { total: 0, found: 0 }])) as Record<
    NeedleKind,
    { total: number; found: number }
  >;

/**
 * Joins the part transcriptions of one image: one trailing newline per part is dropped (editors add
 * one); `lines` pages break between rows, so parts join with a newline; `flow` rows continue, so with
 * nothing. The result is normalized like the source.
 */
export function joinParts(parts: readonly string[], layout: 'lines' | 'flow'): string {
  const cleaned = parts.map((p) => p.replace(/\r\n?/g, '\n').replace(/\n$/, ''));
  return normalize(cleaned.join(layout === 'flow' ? '' : '\n'));
}

/** Scores one transcription (undefined = missing) of `t`. */
export function scoreImage(t: ReadingText, transcription: string | undefined): ImageScore {
  const source = [...t.text];
  const got = [...normalize(transcription ?? '')];
  const { distance, edits, at } = align(source, got);
  const kinds = kindsOf(t);
  const byKind = emptyKinds();
  source.forEach((_, i) => {
    byKind[kinds[i]!].chars++;
    byKind[kinds[i]!].edits += edits[i]!;
  });
  // Lines: [start, end) without the newline; the newline at `end` (if any) counts with the line.
  const lines = { total: 0, exact: 0 };
  const lineStarts: number[] = [0];
  source.forEach((c, i) => c === '\n' && lineStarts.push(i + 1));
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const lineEnd = (k: number) => (k + 1 < lineStarts.length ? lineStarts[k + 1]! - 1 : source.length);
  for (let k = 0; k < lineStarts.length; k++) {
    const a = lineStarts[k]!;
    const b = lineEnd(k);
    if (b === a) continue;
    lines.total++;
    let bad = 0;
    for (let i = a; i <= Math.min(b, source.length - 1); i++) bad += edits[i]!;
    if (bad === 0) lines.exact++;
  }
  // Needles: the exact value somewhere in the transcription window aligned with its line, widened by
  // the value's length on both sides (a reader who drops or adds a few characters still "has" it).
  const needles = emptyNeedles();
  const missed: string[] = [];
  const gotText = got;
  for (const nd of t.needles) {
    needles[nd.kind].total++;
    const k = lineOf(nd.at);
    const len = [...nd.value].length;
    const from = Math.max(0, at[lineStarts[k]!]! - len);
    const to = Math.min(gotText.length, at[Math.min(lineEnd(k), source.length)]! + len);
    if (gotText.slice(from, to).join('').includes(nd.value)) needles[nd.kind].found++;
    else missed.push(nd.value);
  }
  return {
    missing: transcription === undefined,
    chars: source.length,
    distance,
    cer: source.length === 0 ? 0 : distance / source.length,
    byKind,
    lines,
    needles,
    missed,
  };
}

/** Sums image scores. */
export function aggregate(scores: readonly ImageScore[]): Aggregate {
  const byKind = emptyKinds();
  const needles = emptyNeedles();
  let chars = 0;
  let distance = 0;
  let missing = 0;
  const lines = { total: 0, exact: 0 };
  for (const s of scores) {
    chars += s.chars;
    distance += s.distance;
    if (s.missing) missing++;
    lines.total += s.lines.total;
    lines.exact += s.lines.exact;
    for (const k of CONTENT_KINDS) {
      byKind[k].chars += s.byKind[k].chars;
      byKind[k].edits += s.byKind[k].edits;
    }
    for (const k of NEEDLE_KINDS) {
      needles[k].total += s.needles[k].total;
      needles[k].found += s.needles[k].found;
    }
  }
  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  const allNeedles = NEEDLE_KINDS.reduce(
    (acc, k) => ({ total: acc.total + needles[k].total, found: acc.found + needles[k].found }),
    { total: 0, found: 0 },
  );
  return {
    images: scores.length,
    missing,
    chars,
    distance,
    cer: ratio(distance, chars),
    byKind: Object.fromEntries(
      CONTENT_KINDS.map((k) => [k, { ...byKind[k], cer: ratio(byKind[k].edits, byKind[k].chars) }]),
    ) as Aggregate['byKind'],
    lines: { ...lines, rate: ratio(lines.exact, lines.total) },
    needles: Object.fromEntries(
      [...NEEDLE_KINDS, 'all' as const].map((k) => {
        const v = k === 'all' ? allNeedles : needles[k];
        return [k, { ...v, recall: ratio(v.found, v.total) }];
      }),
    ) as Aggregate['needles'],
  };
}

export interface ResultImage extends KitImage {
  /** The joined transcription as read (undefined when no file was written). */
  transcription: string | null;
  score: ImageScore;
}

export interface Results {
  format: typeof RESULTS_FORMAT;
  version: 1;
  reader: { model: string; how: string; date: string };
  /** What else a reader of these results should know (protocol changes, readers' own remarks). */
  notes?: string[];
  kit: { seed: number; variants: string[]; readers: number };
  texts: ReadingText[];
  images: ResultImage[];
  aggregates: { byVariant: Record<string, Aggregate>; byReader: Record<string, Aggregate>; all: Aggregate };
}

function group(images: readonly ResultImage[], by: (i: ResultImage) => string): Record<string, Aggregate> {
  const groups = new Map<string, ImageScore[]>();
  for (const im of images) groups.set(by(im), [...(groups.get(by(im)) ?? []), im.score]);
  return Object.fromEntries([...groups].map(([k, v]) => [k, aggregate(v)]));
}

/** Scores every image of `images` against `texts` and aggregates per variant, per reader and overall. */
export function scoreAll(
  texts: readonly ReadingText[],
  images: readonly (KitImage & { transcription: string | null })[],
): { images: ResultImage[]; aggregates: Results['aggregates'] } {
  const byId = new Map(texts.map((t) => [t.id, t]));
  const scored = images.map((im) => {
    const t = byId.get(im.text);
    if (!t)
      throw new Error(
        `image ${im.name}: text '${im.text}' is not among the texts (${[...byId.keys()].join(', ')})`,
      );
    return { ...im, score: scoreImage(t, im.transcription ?? undefined) };
  });
  return {
    images: scored,
    aggregates: {
      byVariant: group(scored, (i) => i.variant),
      byReader: group(scored, (i) => `reader-${i.reader}`),
      all: aggregate(scored.map((i) => i.score)),
    },
  };
}

/**
 * Reads `dir/key.json` and every transcription beside the PNGs; scores them. With `readers`, only
 * those readers' images count (a kit is often made for more readers than have read it yet).
 */
export function scoreKit(dir: string, reader: Results['reader'], readers?: readonly number[]): Results {
  const keyPath = join(dir, 'key.json');
  if (!existsSync(keyPath))
    throw new Error(`score: ${keyPath} not found (expected a kit made by 'legibility kit')`);
  const key = JSON.parse(readFileSync(keyPath, 'utf8')) as KitKey;
  if (key.format !== KEY_FORMAT)
    throw new Error(`score: ${keyPath}: format expected '${KEY_FORMAT}', found '${String(key.format)}'`);
  const unknown = readers?.filter((r) => !key.images.some((im) => im.reader === r)) ?? [];
  if (unknown.length) throw new Error(`score: reader(s) ${unknown.join(', ')} not in the kit`);
  const chosen = readers ? key.images.filter((im) => readers.includes(im.reader)) : key.images;
  const images = chosen.map((im) => {
    const folder = join(dir, `reader-${im.reader}`);
    const files = im.parts.map((p) => join(folder, p.replace(/\.png$/, '.txt')));
    const present = files.filter((f) => existsSync(f));
    // A text counts as missing only if no part was answered; a missing part is an empty part.
    const transcription =
      present.length === 0
        ? null
        : joinParts(
            files.map((f) => (existsSync(f) ? readFileSync(f, 'utf8') : '')),
            benchVariant(im.variant).layout,
          );
    return { ...im, transcription };
  });
  const scored = scoreAll(key.texts, images);
  return {
    format: RESULTS_FORMAT,
    version: 1,
    reader,
    kit: { seed: key.seed, variants: key.variants, readers: key.readers },
    texts: key.texts,
    ...scored,
  };
}

/** Re-scores a results file from its own texts and transcriptions (the stored scores are replaced). */
export function rescore(results: Results): Results {
  if (results.format !== RESULTS_FORMAT) {
    throw new Error(`rescore: format expected '${RESULTS_FORMAT}', found '${String(results.format)}'`);
  }
  const images = results.images.map(({ score: _, ...im }) => im);
  return { ...results, ...scoreAll(results.texts, images) };
}
