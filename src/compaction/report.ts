/** What a compaction did, for people (`formatReport`) and programs (the object, `--json`). */
import type { Budget } from './budget.js';
import type { Economics } from './economics.js';
import type { RungReport } from './types.js';
import { fmt } from './placeholders.js';

/**
 * How well a model is expected to read the snapshot pages: the measured character error rate of the
 * page variant (providers' legibility table) and where it comes from.
 */
export interface SnapshotLegibility {
  /** Measured CER of the variant (0–1); absent when nobody measured it (a forced variant). */
  cer?: number;
  /** The reader family of that measurement: the model's own, or another's (`fallback` 'any-family'). */
  family?: string;
  /** Where the measurement is (results file, document, probe run). */
  source?: string;
  /** The model's reader family (profile `readerFamily`). */
  readerFamily?: string | undefined;
  /** The floor the choice was made under. */
  maxCer: number;
  /** 'family': nothing within the floor, the family's most legible; 'any-family': family unmeasured. */
  fallback?: 'family' | 'any-family';
  /** The caller named the variant; legibility did not choose it. */
  forced?: boolean;
  /** The fallback in words. */
  note?: string;
}

export interface SnapshotFigures {
  pages: number;
  /** Canonical id of the page variant (font, spacing, scale, layout; docs/renderer.md). */
  variant: string;
  /** Pixel size and cell of each page. */
  shape: { width: number; height: number; cell: string; scale: number };
  /** Tokens one page costs by the profile's image rule. */
  tokensPerPage: number;
  /** Characters of transcript text on the pages. */
  chars: number;
  /** Estimated tokens of that text if sent as text. */
  textTokens: number;
  /** Tokens of the pages as images. */
  imageTokens: number;
  /** textTokens / imageTokens: how many times cheaper the snapshot is. */
  ratio: number;
  /** PNG bytes of all pages. */
  bytes: number;
  /** Expected character error rate of a reader of these pages, with its source. */
  legibility: SnapshotLegibility;
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The expected CER and its source, in words (`formatReport`, `glyphfold shapes`). */
export function describeLegibility(l: SnapshotLegibility): string {
  if (l.cer === undefined) {
    return `expected CER unknown: no measurement of this variant for ${l.readerFamily ?? 'this model'}'s readers${l.forced ? ' (variant chosen by the caller)' : ''}`;
  }
  const who = l.family === l.readerFamily ? `${l.family} readers` : `measured with ${l.family} readers`;
  const floor = l.forced ? 'variant chosen by the caller' : `floor ${pct(l.maxCer)}`;
  return `expected CER ${pct(l.cer)} (${who}, ${floor}; ${l.source})`;
}

export interface CompactionReport {
  model: string;
  /** Notes about the profile (guessed, route). */
  profileNote?: string;
  budget: Budget;
  items: number;
  /** Tokens of the request as it stands (an earlier compaction replayed), overhead included. */
  tokensBefore: number;
  /** Tokens of the request this pass built. Same estimate as every other figure here. */
  tokensAfter: number;
  /**
   * Tokens of the record's items uncompacted, when rungs ran: the ladder starts from there, so the
   * first rung's `tokensBefore` is this, each rung's `tokensAfter` the next one's `tokensBefore`, and
   * the last one's `tokensAfter` is `tokensAfter`. All figures come from one estimate (views' whole
   * request, system and tools included).
   */
  tokensRecord?: number;
  /** Whether the result is within the budget's target. */
  fits: boolean;
  rungs: RungReport[];
  snapshot?: SnapshotFigures;
  economics?: Economics;
  /** Wall time of the compaction, ms. */
  timeMs: number;
  /** Everything a user should know: skipped rungs and why, limits that bit. */
  reasons: string[];
}

const n = fmt;

/** A short human-readable report. */
export function formatReport(r: CompactionReport): string {
  const lines: string[] = [];
  lines.push(`model ${r.model}${r.profileNote ? ` (${r.profileNote})` : ''}`);
  lines.push(
    `budget: window ${n(r.budget.window)} − output ${n(r.budget.maxOutput)} − margin ${n(r.budget.margin)} = limit ${n(r.budget.limit)}; trigger ${n(r.budget.trigger)}, target ${n(r.budget.target)}`,
  );
  lines.push(
    `items ${n(r.items)}: ${n(r.tokensBefore)} → ${n(r.tokensAfter)} tokens (${r.fits ? 'fits' : 'DOES NOT FIT'})`,
  );
  if (r.tokensRecord !== undefined && r.tokensRecord !== r.tokensBefore)
    lines.push(`  (the rungs start from the whole record, ${n(r.tokensRecord)} tokens)`);
  for (const g of r.rungs) {
    const change = g.applied ? `${n(g.tokensBefore)} → ${n(g.tokensAfter)}` : 'skipped';
    lines.push(`  ${g.rung.padEnd(9)} ${change}: ${g.reason}`);
  }
  if (r.snapshot) {
    const s = r.snapshot;
    lines.push(
      `snapshot: ${s.pages} pages ${s.shape.width}×${s.shape.height} (${s.variant}), ${n(s.tokensPerPage)} tokens per full page, ${n(s.chars)} chars, ${n(s.bytes)} bytes`,
    );
    lines.push(
      `snapshot vs text: ${n(s.imageTokens)} image tokens for ${n(s.textTokens)} text tokens = ${s.ratio.toFixed(1)}× fewer; ${describeLegibility(s.legibility)}`,
    );
    if (s.legibility.note) lines.push(`snapshot legibility: ${s.legibility.note}`);
  }
  if (r.economics) {
    const e = r.economics;
    lines.push(
      `cost of next call (${e.unit}): carry on ${n(e.carryOn)}, compact now ${n(e.compactNow)}; cache ${e.cache === 'unknown' ? 'unknown (figured warm)' : e.cache}; saves ${n(e.savedPerLaterCall)} per later call${e.breakEvenCalls > 0 ? `, pays off after ${e.breakEvenCalls === Infinity ? '∞' : e.breakEvenCalls} calls` : ''}`,
    );
  }
  for (const reason of r.reasons) lines.push(`note: ${reason}`);
  lines.push(`time ${r.timeMs.toFixed(1)} ms`);
  return lines.join('\n') + '\n';
}
