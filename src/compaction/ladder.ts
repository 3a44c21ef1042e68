/**
 * The ladder: cheapest rung first, stop as soon as the request fits. A pure function of (path,
 * profile, budget, options) apart from the injected renderer and summarizer; it returns the rewritten
 * request items, the compaction records to append, and the report. The record is never touched.
 */
import type { CompactionItem, Item } from '../transcript/items.js';
import type { Budget } from './budget.js';
import { compactionEconomics, cacheStatus, type CacheState } from './economics.js';
import { sum, type ElideOptions } from './elide.js';
import {
  lastGroup,
  omissionMarker,
  rebuildRequest,
  replaceRanges,
  stickyIds,
  type CompactionRecord,
  type IdRange,
} from './record.js';
import type { CompactionReport, SnapshotLegibility } from './report.js';
import { DEFAULT_MAX_CER } from '../providers/legibility.js';
import { variantId } from '../render/index.js';
import { skipped, type LadderState, type Rung } from './rung.js';
import { DEFAULT_LADDER } from './rungs.js';
import type { ShedOptions } from './shed.js';
import { pageVariant, type PageSpec, type RenderedRun, type SnapshotRenderer } from './snapshot.js';
import type { SummarizeOptions } from './summarize.js';
import type { PageCandidate } from './page-width.js';
import type { CompactionProfile, Estimator, RungName, RungReport } from './types.js';

export interface LadderOptions {
  /** The model the request is for (report, records). */
  model: string;
  profile: CompactionProfile;
  budget: Budget;
  /** Calibrated tokens of one item as the target provider counts it. */
  estimate: Estimator;
  /** Tokens of a plain text (headers, summaries). */
  estimateText: (text: string) => number;
  /** Tokens the request carries besides the items (system prompt, memory, tools). */
  overhead?: number;
  /**
   * The authoritative estimate of a whole request (e.g. views' `estimateTokens(...).total` without the
   * overhead). Default: the sum of per-item estimates.
   */
  measure?: (items: readonly Item[]) => number;
  /** The rungs to climb, in order (rung.ts). Default `DEFAULT_LADDER`; `/shake` passes `SHAKE_LADDER`. */
  ladder?: readonly Rung[];
  /** Which rungs of the ladder may run, by name (all when absent; `[]` runs none). */
  rungs?: readonly (RungName | (string & {}))[];
  /** Run the rungs even when the request already fits (`/compact`). */
  force?: boolean;
  elide?: ElideOptions;
  shed?: ShedOptions;
  /** Renderer and page for snapshots; without them the snapshot rung is skipped, with a reason. */
  renderer?: SnapshotRenderer;
  page?: PageSpec;
  /** Pages of other widths to choose from per pass (see page-width.ts). */
  pages?: readonly PageCandidate[];
  /** Tokens of a page of any size (the profile's image rule): lets runs end on a shorter page. */
  tokensFor?: (width: number, height: number) => number;
  /** The expected legibility of a page variant, for the report (policy.ts `expectedLegibility`). */
  legibility?: (variant: string) => SnapshotLegibility;
  /** Images already spoken for in the request by items that stay (subtracted from the profile limit). */
  snapshotTail?: { fractions?: readonly number[]; personFraction?: number };
  /** The summarizer; without it the summary rung is skipped and overflow is left out, with a reason. */
  summarizer?: Omit<SummarizeOptions, 'estimateText'> & { estimateText?: (text: string) => number };
  cache?: CacheState;
  /** The request as the path stands and its tokens (overhead included), when the caller has them. */
  current?: { items: Item[]; tokens: number };
  /** Clock for the report's time (ms). Default `performance.now`. */
  clock?: () => number;
  /** Extra notes to carry into the report (e.g. the profile was guessed). */
  notes?: string[];
  profileNote?: string;
}

export interface LadderResult {
  /** The request items (no compaction items among them). */
  items: Item[];
  /** Compaction items to append to the record, one per applied rung, in one commit. Empty if none ran. */
  records: CompactionRecord[];
  report: CompactionReport;
  /** Snapshot pages rendered this pass (for writing PNGs). */
  rendered: RenderedRun[];
}

/** Index of the first item that differs between two request item lists (by identity or id). */
function firstChange(a: readonly Item[], b: readonly Item[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i] && JSON.stringify(a[i]) !== JSON.stringify(b[i])) return i;
  return n;
}

/** Climbs the ladder for `path` (root → tip, compaction items included). */
export async function climb(path: readonly Item[], o: LadderOptions): Promise<LadderResult> {
  const clock = o.clock ?? (() => performance.now());
  const t0 = clock();
  const overhead = o.overhead ?? 0;
  const target = o.budget.target;
  const measure = o.measure ?? ((items: readonly Item[]) => sum(items.map(o.estimate)));
  const names = o.rungs ? new Set<string>(o.rungs) : undefined;
  const ladder = (o.ladder ?? DEFAULT_LADDER).filter((r) => !names || names.has(r.name));
  const reasons: string[] = [...(o.notes ?? [])];
  const at = lastGroup(path);
  const group = at ? (path.slice(at.start, at.end + 1) as CompactionItem[]) : [];
  const original = path.filter((i) => i.kind !== 'compaction');
  let rebuilt: Item[] | undefined;
  if (!o.current && at) {
    try {
      rebuilt = (await rebuildRequest(path, o.renderer)).items;
    } catch (err) {
      // A record whose compaction no longer matches its path (e.g. ids renamed by a fork): start over
      // from the original items, and say so.
      reasons.push(`earlier compaction not replayed: ${(err as Error).message}`);
    }
  }
  const current = o.current?.items ?? rebuilt ?? original;
  // Every figure of the report comes from one estimate: `measure` (views' whole request) plus the
  // overhead. The rungs decide on per-item estimates; their report lines are re-measured below so
  // that they add up with the totals.
  const total = (items: readonly Item[]): number => measure(items) + overhead;
  const currentTokens = o.current?.tokens ?? total(current);
  const cache = cacheStatus(o.cache, o.profile);

  const finish = (
    items: Item[],
    rungs: RungReport[],
    records: CompactionRecord[],
    rendered: RenderedRun[],
    record?: number,
    // Only the early exits leave it out, and they return the request as it stands.
    after = currentTokens,
  ) => {
    const pagesRung = rungs.find((r) => r.rung === 'snapshot' && r.applied);
    const report: CompactionReport = {
      model: o.model,
      ...(o.profileNote ? { profileNote: o.profileNote } : {}),
      budget: o.budget,
      items: original.length,
      tokensBefore: currentTokens,
      tokensAfter: after,
      ...(record !== undefined ? { tokensRecord: record } : {}),
      fits: after <= target,
      rungs,
      timeMs: 0, // measured last, below
      reasons,
    };
    const usedPage = records.find((r) => r.rung === 'snapshot')?.params['page'] as PageSpec | undefined;
    if (pagesRung && usedPage) {
      const d = pagesRung.details ?? {};
      const textTokens = Number(d['textTokens'] ?? 0);
      const imageTokens = Number(d['imageTokens'] ?? 0);
      const variant = variantId(pageVariant(usedPage));
      report.snapshot = {
        pages: Number(d['pages'] ?? 0),
        variant,
        shape: { width: usedPage.width, height: usedPage.height, cell: usedPage.cell, scale: usedPage.scale },
        tokensPerPage: usedPage.tokens,
        chars: Number(d['chars'] ?? 0),
        textTokens,
        imageTokens,
        ratio: imageTokens > 0 ? textTokens / imageTokens : 0,
        bytes: Number(d['bytes'] ?? 0),
        legibility: o.legibility?.(variant) ?? { maxCer: DEFAULT_MAX_CER },
      };
    }
    if (records.length) {
      let prefix = 0;
      const change = firstChange(current, items);
      for (let i = 0; i < change; i++) prefix += o.estimate(current[i]!);
      report.economics = compactionEconomics(
        { tokensBefore: currentTokens, tokensAfter: after, unchangedPrefix: prefix + overhead, warm: cache },
        o.profile,
      );
    }
    if (!report.fits) reasons.push(`request is still ${after - target} tokens over the target ${target}`);
    report.timeMs = clock() - t0;
    return { items, records, report, rendered };
  };

  if (!o.force && currentTokens <= target) {
    reasons.push(`request fits: ${currentTokens} ≤ target ${target}`);
    return finish(current, [], [], []);
  }
  if (ladder.length === 0) return finish(current, [], [], []);

  const sticky =
    rebuilt || o.current ? stickyIds(group) : { elided: new Set<string>(), shed: new Set<string>() };
  let items: Item[] = original;
  let tokens = original.map(o.estimate);
  let pending: readonly IdRange[] = [];
  let rendered: RenderedRun[] = [];
  const rungs: RungReport[] = [];
  const records: CompactionRecord[] = [];
  const state: LadderState = {
    options: o,
    get items() {
      return items;
    },
    get tokens() {
      return tokens;
    },
    original,
    sticky,
    get pending() {
      return pending;
    },
    records,
    target,
    overhead,
    force: o.force === true,
    fits: () => sum(tokens) + overhead <= target,
  };
  // Without an earlier compaction the request as it stands is the record: no second count.
  const record = at ? total(original) : currentTokens;
  let measured = record;
  for (const rung of ladder) {
    const when = rung.when(state);
    if (when !== true) {
      rungs.push({ ...skipped(state, rung.name, when.skip), tokensBefore: measured, tokensAfter: measured });
      if (when.note) reasons.push(when.skip);
      continue;
    }
    const step = await rung.apply(state);
    const after = step.items ? total(step.items) : measured;
    if (step.items && after > measured) {
      // Rungs decide on per-item estimates; measured as a whole request the step came out larger
      // (e.g. a page costs more on the wire than its estimate). No rung may grow the request: drop it.
      rungs.push({
        ...step.report,
        applied: false,
        items: [],
        tokensBefore: measured,
        tokensAfter: measured,
        reason: `${step.report.reason}; not applied: the request would measure ${after} tokens, ${measured} before`,
      });
      continue;
    }
    if (step.reasons) reasons.push(...step.reasons);
    if (step.items) {
      items = step.items;
      tokens = step.tokens ?? items.map(o.estimate);
    }
    rungs.push({ ...step.report, tokensBefore: measured, tokensAfter: after });
    measured = after;
    if (step.rendered) rendered = step.rendered;
    if (step.pending) pending = step.pending;
    if (step.record) records.push(step.record);
  }
  if (pending.length) {
    // Left out: the record keeps them; the request says so (and the report, as a line of its own).
    const left = pending.flatMap((r) => [r.from, r.to]);
    items = replaceRanges(items, pending, (run) => [omissionMarker(run)]);
    tokens = items.map(o.estimate);
    const n = pending.length;
    const why = `${n} stretch${n === 1 ? '' : 'es'} of history left out of the request (over the image limits, no summary)`;
    reasons.push(why);
    const after = total(items);
    rungs.push({
      rung: 'left out',
      applied: true,
      tokensBefore: measured,
      tokensAfter: after,
      items: left,
      reason: why,
    });
    measured = after;
  }
  return finish(items, rungs, records, rendered, record, measured);
}
