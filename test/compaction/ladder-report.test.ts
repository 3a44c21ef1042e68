/**
 * What `climb` reports and how it measures (issue 18): the snapshot section of the report, notes and
 * the profile note, the clock, the cache economics' unchanged prefix, a caller's `measure` and
 * `current`, an earlier compaction that no longer replays, a step that would grow the request, an
 * empty ladder, and the plural of the "left out" line.
 */
import { describe, expect, it } from 'vitest';
import { computeBudget } from '../../src/compaction/budget.js';
import { compactionEconomics } from '../../src/compaction/economics.js';
import { climb, type LadderOptions } from '../../src/compaction/ladder.js';
import { RENDERER } from '../../src/compaction/policy.js';
import type { Rung } from '../../src/compaction/rung.js';
import { elideRung, snapshotRung } from '../../src/compaction/rungs.js';
import { pageVariant, type PageSpec } from '../../src/compaction/snapshot.js';
import { DEFAULT_MAX_CER } from '../../src/providers/legibility.js';
import { variantId } from '../../src/render/index.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate, filler } from './builder.js';

const PAGE: PageSpec = { width: 400, height: 300, cell: '4x6', scale: 1, tokens: 100 };
const vision = { contextWindow: 40_000, maxOutput: 4000, vision: true };
const budget = (target: number) => ({ ...computeBudget(vision, { margin: 0, triggerAt: 1 }), target });

function options(extra: Partial<LadderOptions> = {}): LadderOptions {
  return {
    model: 'test-model',
    profile: vision,
    budget: budget(4000),
    estimate: charEstimate,
    estimateText: (t) => Math.ceil(t.length / 4),
    renderer: RENDERER,
    page: PAGE,
    clock: () => 0,
    ...extra,
  };
}

function shards(n: number, size: number): Builder {
  const b = new Builder();
  b.person('Task: make the suite pass.');
  for (let t = 0; t < n; t++) {
    b.tool('bash', { cmd: `shard ${t}` }, filler(size, `s${t}`));
    b.model(`shard ${t} done`);
    b.person(`next (${t})`);
  }
  return b;
}

const total = (items: readonly Item[]): number => items.map(charEstimate).reduce((a, b) => a + b, 0);

describe('the report', () => {
  it('describes the pages of an applied snapshot: shape, variant, figures from the rung, legibility', async () => {
    const b = shards(4, 5000);
    const r = await climb(b.items, options({ ladder: [snapshotRung] }));
    const rung = r.report.rungs[0]!;
    expect(rung.applied).toBe(true);
    const d = rung.details!;
    expect(r.report.snapshot).toEqual({
      pages: d['pages'],
      variant: variantId(pageVariant(PAGE)),
      shape: { width: 400, height: 300, cell: '4x6', scale: 1 },
      tokensPerPage: 100,
      chars: d['chars'],
      textTokens: d['textTokens'],
      imageTokens: d['imageTokens'],
      ratio: (d['textTokens'] as number) / (d['imageTokens'] as number),
      bytes: d['bytes'],
      legibility: { maxCer: DEFAULT_MAX_CER },
    });
    expect(r.report.snapshot!.pages).toBeGreaterThan(0);
    expect(r.report.snapshot!.bytes).toBeGreaterThan(0);
    // The caller's legibility figure for the variant used replaces the default.
    const seen: string[] = [];
    const withLegibility = await climb(
      b.items,
      options({
        ladder: [snapshotRung],
        legibility: (v) => (seen.push(v), { maxCer: 0.002, measuredCer: 0.001 }),
      }),
    );
    expect(seen).toEqual([variantId(pageVariant(PAGE))]);
    expect(withLegibility.report.snapshot!.legibility).toEqual({ maxCer: 0.002, measuredCer: 0.001 });
  });

  it('has no snapshot section when no snapshot was applied', async () => {
    const b = shards(8, 9000);
    const r = await climb(b.items, options({ budget: budget(15_000), ladder: [elideRung, snapshotRung] }));
    expect(r.report.rungs.map((g) => [g.rung, g.applied])).toEqual([
      ['elide', true],
      ['snapshot', false],
    ]);
    expect(r.report.snapshot).toBeUndefined();
  });

  it("carries the caller's notes first and its profile note, and leaves the profile note out when absent", async () => {
    const b = shards(2, 500);
    const fits = await climb(b.items, options({ budget: budget(100_000), notes: ['profile guessed'] }));
    expect(fits.report.reasons[0]).toBe('profile guessed');
    expect(fits.report.reasons).toHaveLength(2);
    expect('profileNote' in fits.report).toBe(false);
    const noted = await climb(b.items, options({ budget: budget(100_000), profileNote: 'from a family' }));
    expect(noted.report.profileNote).toBe('from a family');
  });

  it("measures its time with the caller's clock, from start to end", async () => {
    const b = shards(4, 5000);
    let calls = 0;
    const clock = () => (calls++ === 0 ? 1000 : 1250);
    const r = await climb(b.items, options({ clock }));
    expect(r.report.timeMs).toBe(250);
  });

  it('prices the cache from the unchanged prefix: the items before the first change, plus the overhead', async () => {
    const b = shards(8, 9000);
    const overhead = 300;
    const r = await climb(b.items, options({ budget: budget(15_000), overhead, ladder: [elideRung] }));
    expect(r.records).toHaveLength(1);
    const first = r.items.findIndex((it, i) => it !== b.items[i]);
    expect(first).toBeGreaterThan(0);
    const prefix = total(b.items.slice(0, first)) + overhead;
    expect(r.report.economics).toEqual(
      compactionEconomics(
        {
          tokensBefore: r.report.tokensBefore,
          tokensAfter: r.report.tokensAfter,
          unchangedPrefix: prefix,
          warm: 'unknown',
        },
        vision,
      ),
    );
    // A prefix one token different prices differently (the figure above is not a default).
    expect(r.report.economics).not.toEqual(
      compactionEconomics(
        {
          tokensBefore: r.report.tokensBefore,
          tokensAfter: r.report.tokensAfter,
          unchangedPrefix: prefix - 1,
          warm: 'unknown',
        },
        vision,
      ),
    );
  });
});

describe('measuring', () => {
  it("uses the caller's measure for every figure, the overhead added", async () => {
    const b = shards(8, 9000);
    const measure = (items: readonly Item[]) => 2 * total(items);
    const r = await climb(
      b.items,
      options({ budget: budget(15_000), overhead: 7, measure, ladder: [elideRung] }),
    );
    expect(r.report.tokensBefore).toBe(2 * total(b.items) + 7);
    expect(r.report.tokensAfter).toBe(2 * total(r.items) + 7);
    expect(r.report.rungs[0]).toMatchObject({
      tokensBefore: 2 * total(b.items) + 7,
      tokensAfter: 2 * total(r.items) + 7,
    });
  });

  it("starts from the caller's current request and its count; unchanged, the count is not redone", async () => {
    const b = shards(4, 5000);
    const current = { items: b.items.slice(0, 4), tokens: 123 };
    const fits = await climb(b.items, options({ budget: budget(200), current }));
    expect(fits.report.tokensBefore).toBe(123);
    expect(fits.report.tokensAfter).toBe(123);
    expect(fits.items).toBe(current.items);
    // Over the target with nothing that applies: still the caller's count, still its items.
    const over = await climb(b.items, options({ budget: budget(100), current, ladder: [] }));
    expect(over.report.tokensAfter).toBe(123);
    expect(over.items).toBe(current.items);
    expect(over.report.rungs).toEqual([]);
    expect(over.report.fits).toBe(false);
    expect(over.report.reasons).toEqual(['request is still 23 tokens over the target 100']);
  });

  it('starts over from the original items, and says so, when an earlier compaction no longer replays', async () => {
    const b = shards(4, 5000);
    const last = b.items[b.items.length - 1]!;
    const stale = {
      kind: 'compaction',
      author: 'machinery',
      id: 'c1',
      parent: last.id,
      turn: last.turn,
      time: last.time,
      rung: 'summarize',
      range: { from: 'gone1', to: 'gone2' },
      params: { ranges: [{ from: 'gone1', to: 'gone2' }], model: 'm', chunks: 1 },
      summary: 'ids renamed since',
    } as unknown as Item;
    const r = await climb([...b.items, stale], options({ budget: budget(100_000) }));
    expect(r.items).toEqual(b.items);
    expect(r.report.reasons[0]).toBe(
      'earlier compaction not replayed: compaction: range gone1..gone2 is not in the path',
    );
  });

  it('drops a step that would make the request larger as a whole, and says by how much', async () => {
    const b = shards(4, 5000);
    const grow: Rung = {
      name: 'grow',
      when: () => true,
      apply: (s) => {
        const items = [...s.items, { ...s.items[0]!, id: 'extra' }];
        return {
          items,
          tokens: s.tokens.map(() => 0), // claims to have shrunk
          report: {
            rung: 'grow',
            applied: true,
            tokensBefore: 0,
            tokensAfter: 0,
            items: ['extra'],
            reason: 'r',
          },
          record: {
            kind: 'compaction',
            author: 'machinery',
            rung: 'elide',
            range: { from: 'x', to: 'x' },
            params: {},
          },
        };
      },
    };
    const before = total(b.items);
    const after = total(b.items) + charEstimate(b.items[0]!);
    const r = await climb(b.items, options({ ladder: [grow] }));
    expect(r.items).toEqual(b.items);
    expect(r.records).toEqual([]);
    expect(r.report.rungs).toEqual([
      {
        rung: 'grow',
        applied: false,
        items: [],
        tokensBefore: before,
        tokensAfter: before,
        reason: `r; not applied: the request would measure ${after} tokens, ${before} before`,
      },
    ]);
  });

  it('a step exactly as large as before is kept', async () => {
    const b = shards(4, 5000);
    const same: Rung = {
      name: 'same',
      when: () => true,
      apply: (s) => ({
        items: s.items.map((i) => ({ ...i })),
        report: { rung: 'same', applied: true, tokensBefore: 0, tokensAfter: 0, items: [], reason: 'r' },
      }),
    };
    const r = await climb(b.items, options({ ladder: [same] }));
    expect(r.report.rungs[0]).toMatchObject({ rung: 'same', applied: true, reason: 'r' });
    expect(r.items[0]).not.toBe(b.items[0]);
  });

  it('names several stretches left out in the plural', async () => {
    const b = shards(4, 5000);
    const twoPending: Rung = {
      name: 'harness',
      when: () => true,
      apply: (s) => ({
        report: { rung: 'harness', applied: false, tokensBefore: 0, tokensAfter: 0, items: [], reason: 'r' },
        pending: [
          { from: s.items[1]!.id, to: s.items[2]!.id },
          { from: s.items[4]!.id, to: s.items[5]!.id },
        ],
      }),
    };
    const r = await climb(b.items, options({ ladder: [twoPending] }));
    expect(r.report.rungs[1]).toMatchObject({
      rung: 'left out',
      items: [b.items[1]!.id, b.items[2]!.id, b.items[4]!.id, b.items[5]!.id],
      reason: '2 stretches of history left out of the request (over the image limits, no summary)',
    });
  });

  it('hands the next rung the tokens a step claims, not fresh estimates', async () => {
    const b = shards(4, 5000);
    const seen: number[][] = [];
    const claim: Rung = {
      name: 'claim',
      when: () => true,
      apply: (s) => ({
        items: s.items.slice(),
        tokens: s.items.map(() => 1),
        report: { rung: 'claim', applied: true, tokensBefore: 0, tokensAfter: 0, items: [], reason: 'r' },
      }),
    };
    const probe: Rung = {
      name: 'probe',
      when: (s) => (seen.push([...s.tokens]), { skip: 'looked' }),
      apply: () => ({ report: undefined as never }),
    };
    await climb(b.items, options({ ladder: [claim, probe] }));
    expect(seen).toEqual([b.items.map(() => 1)]);
  });
});

describe('what the rungs see and what is noted', () => {
  /** A rung that records what `fits()` says and skips, noted or not. */
  const probe = (seen: boolean[], note = false): Rung => ({
    name: 'probe',
    when: (s) => (seen.push(s.fits()), note ? { skip: 'probe looked', note } : { skip: 'probe looked' }),
    apply: () => ({ report: undefined as never }),
  });

  it('fits() counts the overhead, and holds at the target exactly', async () => {
    const b = shards(2, 500);
    const t = total(b.items);
    const seen: boolean[] = [];
    for (const target of [t + 10, t + 9])
      await climb(
        b.items,
        options({ budget: budget(target), overhead: 10, force: true, ladder: [probe(seen)] }),
      );
    expect(seen).toEqual([true, false]);
  });

  it('only a skip that asks to be noted reaches the reasons', async () => {
    const b = shards(2, 500);
    const quiet = await climb(b.items, options({ force: true, ladder: [probe([])] }));
    expect(quiet.report.reasons).not.toContain('probe looked');
    expect(quiet.report.rungs[0]).toMatchObject({ rung: 'probe', applied: false, reason: 'probe looked' });
    const noted = await climb(b.items, options({ force: true, ladder: [probe([], true)] }));
    expect(noted.report.reasons).toContain('probe looked');
  });
});

describe('early exits and defaults', () => {
  it('returns nothing rendered, no records and no record count when the request fits or no rung may run', async () => {
    const b = shards(2, 500);
    for (const r of [
      await climb(b.items, options({ budget: budget(100_000) })),
      await climb(b.items, options({ budget: budget(100), ladder: [] })),
    ]) {
      expect(r.records).toEqual([]);
      expect(r.rendered).toEqual([]);
      expect(r.report.rungs).toEqual([]);
      expect(r.report.economics).toBeUndefined();
      expect('tokensRecord' in r.report).toBe(false);
    }
  });

  it('renders nothing when no snapshot ran', async () => {
    const b = shards(8, 9000);
    const r = await climb(b.items, options({ budget: budget(15_000), ladder: [elideRung] }));
    expect(r.records).toHaveLength(1);
    expect(r.rendered).toEqual([]);
  });

  it('times itself with performance.now by default', async () => {
    const r = await climb(shards(2, 500).items, { ...options(), clock: undefined });
    expect(Number.isFinite(r.report.timeMs)).toBe(true);
    expect(r.report.timeMs).toBeGreaterThanOrEqual(0);
  });

  it('takes the snapshot section from the snapshot rung when an earlier rung applied too', async () => {
    const b = shards(8, 9000);
    const r = await climb(
      b.items,
      options({
        budget: budget(6000),
        elide: { minClear: 1, keepTurns: 6 },
        ladder: [elideRung, snapshotRung],
      }),
    );
    expect(r.report.rungs.map((g) => [g.rung, g.applied])).toEqual([
      ['elide', true],
      ['snapshot', true],
    ]);
    expect(r.report.snapshot!.pages).toBe(r.report.rungs[1]!.details!['pages']);
    expect(r.report.snapshot!.pages).toBeGreaterThan(0);
  });
});

describe("the caller's current request and earlier records", () => {
  /** The path after an elide record that names `ids`, then a summarize record that no longer replays. */
  function staleGroup(b: Builder, ids: string[]): Item[] {
    const last = b.items[b.items.length - 1]!;
    const at = { turn: last.turn, time: last.time };
    return [
      ...b.items,
      {
        kind: 'compaction',
        author: 'machinery',
        id: 'c1',
        parent: last.id,
        ...at,
        rung: 'elide',
        range: { from: ids[0], to: ids[ids.length - 1] },
        params: { ids },
      },
      {
        kind: 'compaction',
        author: 'machinery',
        id: 'c2',
        parent: 'c1',
        ...at,
        rung: 'summarize',
        range: { from: 'gone1', to: 'gone2' },
        params: { ranges: [{ from: 'gone1', to: 'gone2' }], model: 'm', chunks: 1 },
        summary: 's',
      },
    ] as unknown as Item[];
  }

  it('keeps no sticky elisions from a group that did not replay', async () => {
    const b = shards(8, 9000);
    const old = b.items
      .filter((i) => i.kind === 'tool_result')
      .slice(0, 2)
      .map((i) => i.id);
    const r = await climb(
      staleGroup(b, old),
      options({ budget: budget(15_000), force: true, elide: { minClear: 1e9 }, ladder: [elideRung] }),
    );
    expect(r.report.reasons[0]).toMatch(/^earlier compaction not replayed/);
    expect(r.report.rungs[0]!.applied).toBe(false);
  });

  it("trusts the caller's current request: the earlier group is not replayed, its elisions stay", async () => {
    const b = shards(8, 9000);
    const old = b.items
      .filter((i) => i.kind === 'tool_result')
      .slice(0, 2)
      .map((i) => i.id);
    const r = await climb(
      staleGroup(b, old),
      options({
        budget: budget(15_000),
        force: true,
        elide: { minClear: 1e9 },
        ladder: [elideRung],
        current: { items: b.items, tokens: total(b.items) },
      }),
    );
    expect(r.report.reasons.some((x) => x.startsWith('earlier compaction not replayed'))).toBe(false);
    expect(r.report.rungs[0]!.items).toEqual(old);
  });
});
