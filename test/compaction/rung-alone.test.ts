/**
 * Each shipped rung alone, on hand-made ladder states (issue 18): when it runs and when it skips, at
 * the exact boundary of the target with and without overhead; the snapshot rung's limits once the
 * request already carries images; the summary rung's source ranges (last item included) and its
 * refusal to grow the request; and climb's own bookkeeping (overhead, pending ranges, report totals).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { computeBudget } from '../../src/compaction/budget.js';
import { climb, type LadderOptions } from '../../src/compaction/ladder.js';
import type { IdRange } from '../../src/compaction/record.js';
import type { Rung } from '../../src/compaction/rung.js';
import { elideRung, shedRung, snapshotRung, summarizeRung } from '../../src/compaction/rungs.js';
import type { PageSpec } from '../../src/compaction/snapshot.js';
import { anthropicSummarizer } from '../../src/compaction/summarize.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate, filler } from './builder.js';
import { ladderOptions, stateOf } from './ladder-state.js';
import { anthropicText, startServer, type TestServer } from './server.js';

const vision = {
  contextWindow: 40_000,
  maxOutput: 4000,
  vision: true,
  images: { maxPerRequest: 6, maxBytesPerImage: 5_000_000, maxBytesPerRequest: 30_000_000 },
};

const options = (extra: Partial<LadderOptions> = {}): LadderOptions => ladderOptions(vision, extra);

function history(): Builder {
  const b = new Builder();
  b.person('Task: make the suite pass.');
  for (let t = 0; t < 6; t++) {
    b.tool('bash', { cmd: `shard ${t}` }, filler(6000, `s${t}`));
    b.model(`shard ${t} done`);
    b.person(`next (${t})`);
  }
  return b;
}

const total = (items: Item[]): number => items.map(charEstimate).reduce((a, b) => a + b, 0);

describe('when each rung runs: exactly at the target it skips, one token over it runs', () => {
  const b = history();
  const t = total(b.items);
  const cases: [Rung, string][] = [
    [elideRung, 'request already fits'],
    [shedRung, 'request already fits'],
    [snapshotRung, 'request already fits'],
    [summarizeRung, 'request already fits'],
  ];
  for (const [rung, skip] of cases) {
    it(rung.name, () => {
      const o = options();
      expect(rung.when(stateOf(b.items, o, { target: t }))).toEqual({ skip });
      expect(rung.when(stateOf(b.items, o, { target: t - 1 }))).toBe(true);
      // The overhead counts: 10 tokens of it make the same items one token over.
      expect(rung.when(stateOf(b.items, o, { target: t + 9, overhead: 10 }))).toBe(true);
      expect(rung.when(stateOf(b.items, o, { target: t + 10, overhead: 10 }))).toEqual({ skip });
      // Forced (`/compact`), every rung runs although the request fits.
      expect(rung.when(stateOf(b.items, o, { target: t, force: true }))).toBe(true);
    });
  }

  it('summarize runs when earlier rungs left pending ranges, even if the request fits', () => {
    const r = { from: b.items[1]!.id, to: b.items[3]!.id };
    expect(summarizeRung.when(stateOf(b.items, options(), { target: t, pending: [r] }))).toBe(true);
  });

  it('snapshot skips without vision or renderer, with a note for the report', () => {
    const over = { target: 10 };
    expect(
      snapshotRung.when(stateOf(history().items, options({ profile: { ...vision, vision: false } }), over)),
    ).toEqual({
      skip: 'model has no vision: snapshots skipped',
      note: true,
    });
    for (const extra of [{ renderer: undefined }, { page: undefined }]) {
      expect(snapshotRung.when(stateOf(history().items, options(extra), over))).toEqual({
        skip: 'no renderer or page shape for this profile: snapshots skipped',
        note: true,
      });
    }
  });
});

describe('the snapshot rung alone', () => {
  it('counts images already in the request against the profile limit, and records what it did', async () => {
    const b = new Builder();
    b.person('Task: read the screenshots and the logs.');
    b.image(100, 100);
    b.image(100, 100);
    for (let t = 0; t < 4; t++) {
      b.tool('bash', { cmd: `log ${t}` }, filler(9000, `l${t}`));
      b.person(`and the next (${t})`);
    }
    b.model('Reading.');
    const o = options();
    const s = stateOf(b.items, o, { target: 3000 });
    const step = await snapshotRung.apply(s);
    const images = step.items!.filter((i) => i.kind === 'image');
    // 6 per request, 2 already there: at most 4 pages, and the two screenshots are still in the request.
    expect(images.length).toBeLessThanOrEqual(6);
    expect(images.length - 2).toBe(step.report.details!.pages);
    expect(step.report.details!.pages).toBeLessThanOrEqual(4);
    expect(step.record).toMatchObject({ kind: 'compaction', rung: 'snapshot' });
    const params = step.record!.params as {
      runs: IdRange[];
      overflow: IdRange[];
      page: PageSpec;
      text: string;
    };
    expect(params.text).toBe('fields');
    expect(step.record!.range).toEqual({
      from: (params.runs[0] ?? params.overflow[0])!.from,
      to: (params.runs[params.runs.length - 1] ?? params.overflow[params.overflow.length - 1])!.to,
    });
    expect(step.pending).toEqual(params.overflow);
    expect(step.tokens).toHaveLength(step.items!.length);
    // With room for 2 more images only (4 already present), fewer pages and more overflow.
    const b2 = new Builder();
    b2.person('Task');
    for (let k = 0; k < 4; k++) b2.image(100, 100);
    for (const it of b.items.slice(3)) b2.items.push({ ...it, parent: b2.items[b2.items.length - 1]!.id });
    const step2 = await snapshotRung.apply(stateOf(b2.items, o, { target: 3000 }));
    expect(step2.report.details!.pages).toBeLessThanOrEqual(2);
    expect((step2.pending ?? []).length).toBeGreaterThan(0);
  });

  it('returns only a report (no items, no record) when nothing is worth imaging', async () => {
    const b = new Builder();
    b.person('hi');
    b.model('short');
    b.person('bye');
    b.model('ok');
    const step = await snapshotRung.apply(stateOf(b.items, options(), { target: 5, force: true }));
    expect(step.items).toBeUndefined();
    expect(step.record).toBeUndefined();
    expect(step.report.applied).toBe(false);
  });
});

describe('the summary rung alone', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('summarizes a pending range from the original items, its last item included', async () => {
    server = await startServer(() => ({ body: anthropicText('## Goal\nsuite passes') }));
    const client = anthropicSummarizer({
      model: 'claude-haiku-4-5',
      apiKey: 'k',
      baseURL: server.url,
      maxRetries: 0,
    });
    const b = history();
    const range = { from: b.items[1]!.id, to: b.items[6]!.id };
    const s = stateOf(b.items, options({ summarizer: { client, window: 100_000, maxTokens: 1000 } }), {
      pending: [range],
    });
    const step = await summarizeRung.apply(s);
    expect(step.report.applied).toBe(true);
    expect(step.report.items).toEqual(b.items.slice(1, 7).map((i) => i.id));
    // The summarizer saw the range's last item (its text is in the request body).
    const sent = JSON.stringify(server.requests[0]!.body);
    expect(sent).toContain('s1 line 127'); // b.items[6], the result that ends the range
    expect(sent).not.toContain('shard 1 done'); // b.items[7], after it
    expect(step.items!.map((i) => i.id)).toEqual([
      b.items[0]!.id,
      `${b.items[1]!.id}~summary`,
      ...b.items.slice(7).map((i) => i.id),
    ]);
    expect(step.pending).toEqual([]);
    expect(step.record).toMatchObject({
      rung: 'summarize',
      range,
      params: { ranges: [range], model: 'claude-haiku-4-5', chunks: 1 },
      summary: '## Goal\nsuite passes',
    });
    expect(step.report.reason).toBe('summarized 6 items with claude-haiku-4-5 in 1 chunk (1 calls)');
  });

  it('keeps the items when the summary would not shrink the request', async () => {
    const b = new Builder();
    b.person('Task');
    b.model('a');
    b.model('b');
    b.person('next');
    b.model('c');
    server = await startServer(() => ({ body: anthropicText('x'.repeat(400)) }));
    const client = anthropicSummarizer({
      model: 'claude-haiku-4-5',
      apiKey: 'k',
      baseURL: server.url,
      maxRetries: 0,
    });
    const range = { from: b.items[1]!.id, to: b.items[2]!.id };
    const s = stateOf(b.items, options({ summarizer: { client, window: 100_000, maxTokens: 1000 } }), {
      pending: [range],
    });
    const step = await summarizeRung.apply(s);
    expect(step.items).toBeUndefined();
    expect(step.report.applied).toBe(false);
    expect(step.reasons![0]).toMatch(
      /^a summary of 2 items would not shrink the request \(\d+ → \d+ tokens\): kept them$/,
    );
  });

  it('says why it cannot run: nothing in the middle, or no summarizer', async () => {
    const tiny = new Builder();
    tiny.person('only');
    const step = await summarizeRung.apply(stateOf(tiny.items, options(), { force: true }));
    expect(step.report).toMatchObject({
      applied: false,
      reason: 'nothing between head and tail to summarize',
    });
    const b = history();
    const none = await summarizeRung.apply(stateOf(b.items, options(), { target: 100 }));
    expect(none.report.reason).toBe('no summarizer configured: the summary rung cannot run');
    expect(none.reasons).toEqual(['no summarizer configured: the summary rung cannot run']);
  });
});

describe('climb bookkeeping', () => {
  it('fits exactly at the target with the overhead counted; one token of overhead more does not', async () => {
    const b = history();
    const t = total(b.items);
    const budget = { ...computeBudget(vision, { margin: 0, triggerAt: 1 }), target: t + 50 };
    const fit = await climb(b.items, options({ budget, overhead: 50 }));
    expect(fit.report.tokensBefore).toBe(t + 50);
    expect(fit.report.fits).toBe(true);
    expect(fit.report.rungs).toEqual([]);
    expect(fit.report.reasons).toEqual([`request fits: ${t + 50} ≤ target ${t + 50}`]);
    const over = await climb(b.items, options({ budget, overhead: 51, ladder: [elideRung] }));
    expect(over.report.rungs.map((r) => r.rung)).toEqual(['elide']);
    expect(over.report.rungs[0]!.tokensBefore).toBe(t + 51);
    expect(over.report.tokensAfter).toBe(total(over.items) + 51);
    expect(over.report.fits).toBe(over.report.tokensAfter <= t + 50);
  });

  it('leaves pending ranges out with an omission marker when no rung takes them', async () => {
    const b = history();
    const pendingRung: Rung = {
      name: 'harness',
      when: () => true,
      apply: (s) => ({
        report: { rung: 'harness', applied: false, tokensBefore: 0, tokensAfter: 0, items: [], reason: 'r' },
        pending: [{ from: s.items[1]!.id, to: s.items[3]!.id }],
      }),
    };
    const r = await climb(
      b.items,
      options({ budget: { ...computeBudget(vision), target: 10 }, ladder: [pendingRung] }),
    );
    expect(r.items[1]).toMatchObject({ kind: 'summary', id: `${b.items[1]!.id}~omitted` });
    expect(r.items.length).toBe(b.items.length - 2);
    const left = r.report.rungs[r.report.rungs.length - 1]!;
    expect(left).toMatchObject({
      rung: 'left out',
      applied: true,
      items: [b.items[1]!.id, b.items[3]!.id],
      reason: '1 stretch of history left out of the request (over the image limits, no summary)',
    });
    expect(left.tokensAfter).toBe(total(r.items));
    expect(r.report.tokensAfter).toBe(left.tokensAfter);
    expect(r.report.reasons).toContain(
      'request is still ' + (left.tokensAfter - 10) + ' tokens over the target 10',
    );
  });

  it('reports a skipped rung with the measured figures and notes only what asks to be noted', async () => {
    const b = history();
    const t = total(b.items);
    const r = await climb(
      b.items,
      options({
        budget: { ...computeBudget(vision), target: t - 1 },
        renderer: undefined,
        ladder: [snapshotRung],
      }),
    );
    expect(r.report.rungs).toEqual([
      {
        rung: 'snapshot',
        applied: false,
        tokensBefore: t,
        tokensAfter: t,
        items: [],
        reason: 'no renderer or page shape for this profile: snapshots skipped',
      },
    ]);
    expect(r.report.reasons).toContain('no renderer or page shape for this profile: snapshots skipped');
    expect(r.records).toEqual([]);
    expect(r.report.economics).toBeUndefined();
  });
});
