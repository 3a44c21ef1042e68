/**
 * The four rungs glyphfold ships, as values of the `Rung` contract (rung.ts), and the lists the
 * ladder and the slash commands run: `DEFAULT_LADDER` (elide → shed → snapshot → summarize) and
 * `SHAKE_LADDER` (the free rungs). Each rung wraps its module (elide.ts, shed.ts, snapshot.ts,
 * summarize.ts) and writes the record that module's replay in record.ts reads.
 */
import type { Item } from '../transcript/items.js';
import { elide, sum } from './elide.js';
import { planSnapshot } from './plan.js';
import { replaceRanges, summaryItem, type IdRange } from './record.js';
import { skipped, type LadderState, type Rung, type RungStep } from './rung.js';
import { shed } from './shed.js';
import { snapshot, type SnapshotResult } from './snapshot.js';
import { summarize } from './summarize.js';
import type { RungReport } from './types.js';

/** Tail budgets tried in turn (fractions of the target), largest first. */
export const DEFAULT_TAIL_FRACTIONS = [0.3, 0.15, 0.05] as const;
/** Budget for person messages kept verbatim inside the middle (fraction of the target). */
export const DEFAULT_PERSON_FRACTION = 0.1;

/** From the first to the last id a free rung replaced (it replaced at least one when applied). */
function range(ids: readonly string[]): IdRange {
  return { from: ids[0]!, to: ids[ids.length - 1]! };
}

/** The free rungs replace items by id; their record names those ids so a replay does the same. */
function byId(rung: 'elide' | 'shed', r: { items: Item[]; tokens: number[]; report: RungReport }): RungStep {
  if (!r.report.applied) return { report: r.report };
  return {
    report: r.report,
    items: r.items,
    tokens: r.tokens,
    record: {
      kind: 'compaction',
      author: 'machinery',
      rung,
      range: range(r.report.items),
      params: { ids: r.report.items },
    },
  };
}

/** Runs when forced or over the target (first in the default list, so it always looks there). */
const overTarget = (s: LadderState): true | { skip: string } =>
  s.force || !s.fits() ? true : { skip: 'request already fits' };

/** Rung 1: old tool results nothing refers to become placeholders (elide.ts). */
export const elideRung: Rung = {
  name: 'elide',
  when: overTarget,
  apply(s) {
    const o = s.options;
    const minClear = o.elide?.minClear ?? Math.min(20_000, Math.ceil(s.target * 0.1));
    return byId(
      'elide',
      elide(s.items, s.tokens, o.estimate, { ...o.elide, minClear, sticky: s.sticky.elided }),
    );
  },
};

/** Rung 2: images beyond the newest few become placeholders (shed.ts). */
export const shedRung: Rung = {
  name: 'shed',
  when: overTarget,
  apply: (s) =>
    byId('shed', shed(s.items, s.tokens, s.options.estimate, { ...s.options.shed, sticky: s.sticky.shed })),
};

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

/**
 * Rung 3: the middle rendered onto pages (snapshot.ts). What it cannot image within the profile's
 * limits stays verbatim as pending ranges for the summary rung (or an omission marker).
 */
export const snapshotRung: Rung = {
  name: 'snapshot',
  when(s) {
    const o = s.options;
    if (!s.force && s.fits()) return { skip: 'request already fits' };
    if (!o.profile.vision) return { skip: 'model has no vision: snapshots skipped', note: true };
    if (!o.renderer || !o.page)
      return { skip: 'no renderer or page shape for this profile: snapshots skipped', note: true };
    return true;
  },
  async apply(s) {
    const o = s.options;
    const fractions = o.snapshotTail?.fractions ?? DEFAULT_TAIL_FRACTIONS;
    const personBudget = Math.floor(s.target * (o.snapshotTail?.personFraction ?? DEFAULT_PERSON_FRACTION));
    const present = imagesIn(s.items);
    const lim = o.profile.images;
    const limits = {
      maxImages: Math.max(0, (lim?.maxPerRequest ?? 20) - present.count),
      maxBytesPerImage: lim?.maxBytesPerImage ?? 5 * 1024 * 1024,
      maxBytes: Math.max(0, (lim?.maxBytesPerRequest ?? 32 * 1024 * 1024) - present.bytes),
    };
    let best: SnapshotResult | undefined;
    for (const f of fractions) {
      const r = await snapshot(s.items, s.tokens, o.renderer!, {
        page: o.page!,
        limits,
        target: s.target - s.overhead,
        tailBudget: Math.floor(s.target * f),
        personBudget,
        estimateText: o.estimateText,
        ...(o.tokensFor ? { tokensFor: o.tokensFor } : {}),
        ...(o.pages ? { pages: o.pages } : {}),
      });
      best = r;
      if (r.overflow.length === 0 && sum(r.tokens) + s.overhead <= s.target) break;
    }
    const r = best!;
    if (!r.report.applied && !r.overflow.length) return { report: r.report };
    const { runs, overflow, page, text, output } = r.decision;
    return {
      report: r.report,
      items: r.items,
      tokens: r.tokens,
      rendered: r.rendered,
      record: {
        kind: 'compaction',
        author: 'machinery',
        rung: 'snapshot',
        // Runs when any were imaged, else the overflow (one of the two is not empty here).
        range: {
          from: (runs[0] ?? overflow[0]!).from,
          to: (runs[runs.length - 1] ?? overflow[overflow.length - 1]!).to,
        },
        params: { runs, overflow, page, ...(text ? { text } : {}), ...(output ? { output } : {}) },
      },
      // Overflow ranges are still verbatim in the items; the summary rung or the omission marker
      // replaces them (by id, since indices moved).
      pending: overflow,
    };
  },
};

/**
 * What to summarize when no earlier rung left ranges: the middle of the plan, head and tail verbatim
 * (the tail reaches back to the latest person message, plan.ts), and every person message in the
 * middle kept verbatim in place while the person budget allows. The tail shrinks until the verbatim
 * part leaves room for the summary.
 */
function middle(s: LadderState): IdRange[] {
  const o = s.options;
  const fractions = o.snapshotTail?.fractions ?? DEFAULT_TAIL_FRACTIONS;
  const personBudget = Math.floor(s.target * (o.snapshotTail?.personFraction ?? DEFAULT_PERSON_FRACTION));
  const { items, tokens } = s;
  // The largest tail that leaves room for the summary; else the smallest one.
  const room = s.target - s.overhead - (o.summarizer?.maxTokens ?? 4000);
  let plan = planSnapshot(items, tokens, { tailBudget: 0, personBudget });
  for (const f of fractions) {
    const p = planSnapshot(items, tokens, { tailBudget: Math.floor(s.target * f), personBudget });
    let kept = sum(tokens);
    for (const m of p.middle) if (!m.verbatim) for (let i = m.from; i < m.to; i++) kept -= tokens[i]!;
    plan = p;
    if (kept <= room) break;
  }
  return plan.middle
    .filter((m) => !m.verbatim)
    .map((m) => ({ from: items[m.from]!.id, to: items[m.to - 1]!.id }));
}

/**
 * Rung 4: a model-written summary (summarize.ts) of the pending ranges, or of the whole middle when
 * no earlier rung left any (head and tail verbatim). Summarizes from the record, not placeholders.
 */
export const summarizeRung: Rung = {
  name: 'summarize',
  callsModel: true,
  when: (s) => (s.pending.length === 0 && s.fits() && !s.force ? { skip: 'request already fits' } : true),
  async apply(s) {
    const o = s.options;
    const ranges = s.pending.length ? s.pending : middle(s);
    if (ranges.length === 0)
      return { report: skipped(s, 'summarize', 'nothing between head and tail to summarize') };
    if (!o.summarizer) {
      const why = 'no summarizer configured: the summary rung cannot run';
      return { report: skipped(s, 'summarize', why), reasons: [why] };
    }
    const before = sum(s.tokens);
    const at = new Map(s.original.map((it, i) => [it.id, i]));
    const source: Item[] = [];
    for (const rg of ranges) {
      const a = at.get(rg.from)!;
      const b = at.get(rg.to)!;
      for (let i = a; i <= b; i++) source.push(s.original[i]!);
    }
    const r = await summarize(source, { estimateText: o.estimateText, ...o.summarizer });
    const last = ranges[ranges.length - 1]!;
    const items = replaceRanges(s.items, ranges, (run, k) =>
      k === 0 ? [summaryItem(run[0]!, last.to, r.text)] : [],
    );
    const tokens = items.map(o.estimate);
    if (sum(tokens) >= before) {
      // A summary no smaller than what it stands for only loses words: keep the items.
      const why = `a summary of ${source.length} items would not shrink the request (${before} → ${sum(tokens)} tokens): kept them`;
      return { report: skipped(s, 'summarize', why), reasons: [why] };
    }
    return {
      items,
      tokens,
      pending: [],
      report: {
        rung: 'summarize',
        applied: true,
        tokensBefore: before,
        tokensAfter: sum(tokens),
        items: source.map((i) => i.id),
        reason: `summarized ${source.length} items with ${o.summarizer.client.model} in ${r.chunks} chunk${r.chunks === 1 ? '' : 's'} (${r.calls} calls${r.overflows ? `; re-chunked ${r.overflows}× after the summarizer's own overflow` : ''})`,
        details: { chunks: r.chunks, calls: r.calls, ...(r.overflows ? { overflows: r.overflows } : {}) },
      },
      record: {
        kind: 'compaction',
        author: 'machinery',
        rung: 'summarize',
        range: { from: ranges[0]!.from, to: last.to },
        params: { ranges, model: o.summarizer.client.model, chunks: r.chunks },
        summary: r.text,
      },
    };
  },
};

/** The default ladder, cheapest first: elide → shed → snapshot → summarize. */
export const DEFAULT_LADDER: readonly Rung[] = [elideRung, shedRung, snapshotRung, summarizeRung];

/** The free rungs `/shake` runs: no pages, no model call. */
export const SHAKE_LADDER: readonly Rung[] = [elideRung, shedRung];
