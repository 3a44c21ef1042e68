/**
 * The ladder: cheapest rung first, stop as soon as the request fits. A pure function of (path,
 * profile, budget, options) apart from the injected renderer and summarizer; it returns the rewritten
 * request items, the compaction records to append, and the report. The record is never touched.
 */
import type { CompactionItem, Item } from '../transcript/items.js';
import type { Budget } from './budget.js';
import { compactionEconomics, cacheWarm, type CacheState } from './economics.js';
import { elide, sum, type ElideOptions } from './elide.js';
import { planSnapshot } from './plan.js';
import {
  lastGroup,
  omissionMarker,
  rebuildRequest,
  replaceRanges,
  stickyIds,
  summaryItem,
  type CompactionRecord,
  type IdRange,
} from './record.js';
import type { CompactionReport, SnapshotLegibility } from './report.js';
import { shed, type ShedOptions } from './shed.js';
import { DEFAULT_MAX_CER } from '../providers/legibility.js';
import { variantId } from '../render/index.js';
import {
  pageVariant,
  snapshot,
  type PageSpec,
  type RenderedRun,
  type SnapshotRenderer,
  type SnapshotResult,
} from './snapshot.js';
import { summarize, type SummarizeOptions } from './summarize.js';
import type { PageCandidate } from './page-width.js';
import { RUNGS, type CompactionProfile, type Estimator, type RungName, type RungReport } from './types.js';

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
  /** Which rungs may run. Default all four; `/shake` passes `['elide', 'shed']`. */
  rungs?: readonly RungName[];
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

const DEFAULT_TAIL_FRACTIONS = [0.3, 0.15, 0.05] as const;
const DEFAULT_PERSON_FRACTION = 0.1;

function imagesIn(items: readonly Item[]): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const it of items) {
    if (it.kind === 'image') {
      count++;
      bytes += it.data.length;
    } else if (it.kind === 'tool_result') {
      for (const p of it.content)
        if (p.type === 'image') {
          count++;
          bytes += p.data.length;
        }
    }
  }
  return { count, bytes };
}

function range(items: readonly Item[], ids: readonly string[]): IdRange {
  return { from: ids[0] ?? items[0]?.id ?? '', to: ids[ids.length - 1] ?? items[items.length - 1]?.id ?? '' };
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
  const allowed = new Set(o.rungs ?? RUNGS);
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
  // The request as it stands is counted item by item (the ladder needs those figures anyway); views'
  // whole-request estimate is kept for the compacted request, which is what gets sent.
  const originalTokens = original.map(o.estimate);
  const currentTokens =
    o.current?.tokens ??
    (current === original ? sum(originalTokens) : sum(current.map(o.estimate))) + overhead;
  const warm = cacheWarm(o.cache ?? {}, o.profile);

  const finish = (
    items: Item[],
    rungs: RungReport[],
    records: CompactionRecord[],
    rendered: RenderedRun[],
  ) => {
    const after = items === current ? currentTokens : measure(items) + overhead;
    const pagesRung = rungs.find((r) => r.rung === 'snapshot' && r.applied);
    const report: CompactionReport = {
      model: o.model,
      ...(o.profileNote ? { profileNote: o.profileNote } : {}),
      budget: o.budget,
      items: original.length,
      tokensBefore: currentTokens,
      tokensAfter: after,
      fits: after <= target,
      rungs,
      timeMs: clock() - t0,
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
        { tokensBefore: currentTokens, tokensAfter: after, unchangedPrefix: prefix + overhead, warm },
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
  if (allowed.size === 0) return finish(current, [], [], []);

  const sticky =
    rebuilt || o.current ? stickyIds(group) : { elided: new Set<string>(), shed: new Set<string>() };
  let items: Item[] = original;
  let tokens = originalTokens;
  const rungs: RungReport[] = [];
  const records: CompactionRecord[] = [];
  const fits = () => sum(tokens) + overhead <= target;
  const skip = (rung: RungName, reason: string) =>
    rungs.push({
      rung,
      applied: false,
      tokensBefore: sum(tokens),
      tokensAfter: sum(tokens),
      items: [],
      reason,
    });

  // The free rungs replace items by id; their record names those ids so a replay does the same.
  const applyById = (
    rung: 'elide' | 'shed',
    r: { items: Item[]; tokens: typeof tokens; report: RungReport },
  ) => {
    rungs.push(r.report);
    if (!r.report.applied) return;
    items = r.items;
    tokens = r.tokens;
    records.push({
      kind: 'compaction',
      author: 'machinery',
      rung,
      range: range(items, r.report.items),
      params: { ids: r.report.items },
    });
  };
  // Rung 1: elide.
  if (allowed.has('elide')) {
    const minClear = o.elide?.minClear ?? Math.min(20_000, Math.ceil(target * 0.1));
    applyById('elide', elide(items, tokens, o.estimate, { ...o.elide, minClear, sticky: sticky.elided }));
  }
  // Rung 2: shed.
  if (allowed.has('shed') && (o.force || !fits())) {
    applyById('shed', shed(items, tokens, o.estimate, { ...o.shed, sticky: sticky.shed }));
  } else if (allowed.has('shed')) skip('shed', 'request already fits');

  // Rung 3: snapshot. Rung 4 takes over what it could not image.
  let overflowIds: IdRange[] = [];
  let rendered: RenderedRun[] = [];
  const fractions = o.snapshotTail?.fractions ?? DEFAULT_TAIL_FRACTIONS;
  const personBudget = Math.floor(target * (o.snapshotTail?.personFraction ?? DEFAULT_PERSON_FRACTION));
  if (!allowed.has('snapshot')) {
    // not requested (/shake): nothing to say
  } else if (!o.force && fits()) {
    skip('snapshot', 'request already fits');
  } else if (!o.profile.vision) {
    const why = 'model has no vision: snapshots skipped';
    skip('snapshot', why);
    reasons.push(why);
  } else if (!o.renderer || !o.page) {
    const why = 'no renderer or page shape for this profile: snapshots skipped';
    skip('snapshot', why);
    reasons.push(why);
  } else {
    const present = imagesIn(items);
    const lim = o.profile.images;
    const limits = {
      maxImages: Math.max(0, (lim?.maxPerRequest ?? 20) - present.count),
      maxBytesPerImage: lim?.maxBytesPerImage ?? 5 * 1024 * 1024,
      maxBytes: Math.max(0, (lim?.maxBytesPerRequest ?? 32 * 1024 * 1024) - present.bytes),
    };
    let best: SnapshotResult | undefined;
    for (const f of fractions) {
      const r = await snapshot(items, tokens, o.renderer, {
        page: o.page,
        limits,
        target: target - overhead,
        tailBudget: Math.floor(target * f),
        personBudget,
        estimateText: o.estimateText,
        ...(o.tokensFor ? { tokensFor: o.tokensFor } : {}),
        ...(o.pages ? { pages: o.pages } : {}),
      });
      best = r;
      if (r.overflow.length === 0 && sum(r.tokens) + overhead <= target) break;
    }
    const r = best!;
    rungs.push(r.report);
    if (r.report.applied || r.overflow.length) {
      items = r.items;
      tokens = r.tokens;
      rendered = r.rendered;
      records.push({
        kind: 'compaction',
        author: 'machinery',
        rung: 'snapshot',
        range: {
          from: r.decision.runs[0]?.from ?? r.decision.overflow[0]?.from ?? '',
          to:
            r.decision.runs[r.decision.runs.length - 1]?.to ??
            r.decision.overflow[r.decision.overflow.length - 1]?.to ??
            '',
        },
        params: {
          runs: r.decision.runs,
          overflow: r.decision.overflow,
          page: r.decision.page,
          ...(r.decision.text ? { text: r.decision.text } : {}),
        },
      });
      // Overflow ranges are still verbatim in `items` at this point; the summary rung or the
      // omission marker below replaces them (by id, since indices moved).
      overflowIds = r.decision.overflow;
    }
  }

  // Rung 4: summary of what is left: the snapshot's overflow, or the whole middle when snapshots
  // were not possible.
  let summaryRanges: readonly IdRange[] = overflowIds;
  if (!allowed.has('summarize')) {
    // not requested
  } else if (summaryRanges.length === 0 && fits() && !o.force) {
    skip('summarize', 'request already fits');
  } else {
    if (summaryRanges.length === 0) {
      // No snapshot ran: summarize the middle of the plan (head and tail verbatim), tail shrinking
      // until the result fits.
      // The largest tail that leaves room for the summary; else the smallest one.
      const room = target - overhead - (o.summarizer?.maxTokens ?? 4000);
      let plan = planSnapshot(items, tokens, { tailBudget: 0, personBudget: 0 });
      for (const f of fractions) {
        const p = planSnapshot(items, tokens, { tailBudget: Math.floor(target * f), personBudget: 0 });
        let kept = 0;
        for (let i = 0; i < p.headEnd; i++) kept += tokens[i]!;
        for (let i = p.tailStart; i < tokens.length; i++) kept += tokens[i]!;
        plan = p;
        if (kept <= room) break;
      }
      if (plan.tailStart > plan.headEnd) {
        summaryRanges = [{ from: items[plan.headEnd]!.id, to: items[plan.tailStart - 1]!.id }];
      }
    }
    if (summaryRanges.length === 0) {
      skip('summarize', 'nothing between head and tail to summarize');
    } else if (!o.summarizer) {
      const why = 'no summarizer configured: the summary rung cannot run';
      skip('summarize', why);
      reasons.push(why);
    } else {
      const before = sum(tokens);
      // Summarize from the record: the original items of the ranges, not their placeholders.
      const byId = new Map(original.map((it, i) => [it.id, i]));
      const source: Item[] = [];
      for (const rg of summaryRanges) {
        const a = byId.get(rg.from)!;
        const b = byId.get(rg.to)!;
        for (let i = a; i <= b; i++) source.push(original[i]!);
      }
      const s = await summarize(source, { estimateText: o.estimateText, ...o.summarizer });
      const last = summaryRanges[summaryRanges.length - 1]!;
      items = replaceRanges(items, summaryRanges, (run, k) =>
        k === 0 ? [summaryItem(run[0]!, last.to, s.text)] : [],
      );
      tokens = items.map(o.estimate);
      const ids = source.map((i) => i.id);
      rungs.push({
        rung: 'summarize',
        applied: true,
        tokensBefore: before,
        tokensAfter: sum(tokens),
        items: ids,
        reason: `summarized ${source.length} items with ${o.summarizer.client.model} in ${s.chunks} chunk${s.chunks === 1 ? '' : 's'} (${s.calls} calls)`,
        details: { chunks: s.chunks, calls: s.calls },
      });
      records.push({
        kind: 'compaction',
        author: 'machinery',
        rung: 'summarize',
        range: { from: summaryRanges[0]!.from, to: last.to },
        params: { ranges: summaryRanges, model: o.summarizer.client.model, chunks: s.chunks },
        summary: s.text,
      });
    }
  }
  if (overflowIds.length && !records.some((r) => r.rung === 'summarize')) {
    // Left out: the record keeps them; the request says so.
    items = replaceRanges(items, overflowIds, (run) => [omissionMarker(run)]);
    tokens = items.map(o.estimate);
    const n = overflowIds.length;
    reasons.push(
      `${n} stretch${n === 1 ? '' : 'es'} of history left out of the request (over the image limits, no summary)`,
    );
  }
  return finish(items, rungs, records, rendered);
}
