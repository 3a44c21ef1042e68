import { describe, expect, it } from 'vitest';
import { computeBudget } from '../../src/compaction/budget.js';
import { climb, type LadderOptions } from '../../src/compaction/ladder.js';
import { rebuildRequest } from '../../src/compaction/record.js';
import type { LadderState, Rung } from '../../src/compaction/rung.js';
import {
  DEFAULT_LADDER,
  elideRung,
  SHAKE_LADDER,
  shedRung,
  snapshotRung,
  summarizeRung,
} from '../../src/compaction/rungs.js';
import { runSlash } from '../../src/commands/index.js';
import { MemoryWorkspace } from '../../src/tree/index.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate, filler } from './builder.js';

const textOnly = { contextWindow: 30_000, maxOutput: 4000, vision: false };

function options(extra: Partial<LadderOptions> = {}): LadderOptions {
  return {
    model: 'test-model',
    profile: textOnly,
    budget: computeBudget(textOnly, { margin: 0, triggerAt: 1 }),
    estimate: charEstimate,
    estimateText: (t) => Math.ceil(t.length / 4),
    clock: () => 0,
    ...extra,
  };
}

function toolHeavy(): Builder {
  const b = new Builder();
  b.person('Task: make the test suite pass.');
  for (let t = 0; t < 10; t++) {
    b.tool('bash', { cmd: `npm test -- shard ${t}` }, filler(12_000, `shard${t}`));
    b.model(`shard ${t} looked fine`);
    b.person(`next shard please (${t})`);
  }
  return b;
}

/** A state for driving one rung by hand: the request as the record stands, nothing pending. */
function stateOf(items: Item[], o: LadderOptions): LadderState {
  const tokens = items.map(o.estimate);
  return {
    options: o,
    items,
    tokens,
    original: items,
    sticky: { elided: new Set(), shed: new Set() },
    pending: [],
    records: [],
    target: o.budget.target,
    overhead: 0,
    force: false,
    fits: () => tokens.reduce((a, b) => a + b, 0) <= o.budget.target,
  };
}

describe('the ladder as data', () => {
  it('ships the four rungs in order, and /shake the free ones', () => {
    expect(DEFAULT_LADDER.map((r) => r.name)).toEqual(['elide', 'shed', 'snapshot', 'summarize']);
    expect(DEFAULT_LADDER.filter((r) => r.callsModel).map((r) => r.name)).toEqual(['summarize']);
    expect(SHAKE_LADDER).toEqual([elideRung, shedRung]);
  });

  it('drives one rung alone: elide applies to a hand-made state and writes its record', async () => {
    const b = toolHeavy();
    const o = options();
    const s = stateOf(b.items, o);
    expect(elideRung.when(s)).toBe(true);
    const step = await elideRung.apply(s);
    expect(step.report.applied).toBe(true);
    expect(step.report.tokensAfter).toBeLessThan(step.report.tokensBefore);
    expect(step.record).toMatchObject({
      kind: 'compaction',
      rung: 'elide',
      params: { ids: step.report.items },
    });
    expect(step.items!.filter((i, k) => i !== b.items[k]).map((i) => i.id)).toEqual(step.report.items);
    // The other rungs say why they do not run on a text-only profile without a summarizer.
    expect(snapshotRung.when(s)).toEqual({ skip: 'model has no vision: snapshots skipped', note: true });
    const sum = await summarizeRung.apply(s);
    expect(sum.report).toMatchObject({ rung: 'summarize', applied: false });
    expect(sum.reasons).toEqual(['no summarizer configured: the summary rung cannot run']);
  });

  it('climbs a custom list: a harness rung first, shed and elide reordered, snapshot removed', async () => {
    const b = toolHeavy();
    let looked = 0;
    // A request-only rung (no record): keeps the newest three tool results whole, cuts older ones.
    const clip: Rung = {
      name: 'clip',
      when: (s) => (s.fits() ? { skip: 'request already fits' } : true),
      apply(s) {
        looked++;
        const keep = new Set(
          s.items
            .filter((i) => i.kind === 'tool_result')
            .slice(-3)
            .map((i) => i.id),
        );
        const items = s.items.map((i) =>
          i.kind === 'tool_result' && !keep.has(i.id)
            ? { ...i, content: [{ type: 'text' as const, text: '[clipped]' }] }
            : i,
        );
        const before = s.tokens.reduce((a, c) => a + c, 0);
        const tokens = items.map(s.options.estimate);
        return {
          items,
          tokens,
          report: {
            rung: 'clip',
            applied: true,
            tokensBefore: before,
            tokensAfter: tokens.reduce((a, c) => a + c, 0),
            items: items.filter((i, k) => i !== s.items[k]).map((i) => i.id),
            reason: 'older tool results clipped',
          },
        };
      },
    };
    const r = await climb(b.items, options({ ladder: [clip, shedRung, elideRung, summarizeRung] }));
    expect(looked).toBe(1);
    expect(r.report.rungs.map((g) => [g.rung, g.applied])).toEqual([
      ['clip', true],
      ['shed', false],
      ['elide', false],
      ['summarize', false],
    ]);
    expect(r.report.fits).toBe(true);
    expect(r.records).toEqual([]); // clip writes none: it is re-applied on every pass
    expect(
      r.items.filter((i) => i.kind === 'tool_result' && JSON.stringify(i).includes('[clipped]')),
    ).toHaveLength(7);
    // Filtering by name still works on a custom list.
    const named = await climb(b.items, options({ ladder: [clip, elideRung], rungs: ['elide'] }));
    expect(named.report.rungs.map((g) => g.rung)).toEqual(['elide']);
  });

  it('is the same ladder as before: the default list and no list give the same bytes and replay', async () => {
    const b = toolHeavy();
    const a = await climb(b.items, options());
    const d = await climb(b.items, options({ ladder: DEFAULT_LADDER }));
    expect(JSON.stringify(d)).toBe(JSON.stringify(a));
    const path = b.items.slice();
    for (const rec of a.records) {
      const last = path[path.length - 1]!;
      path.push({ ...rec, id: `c${path.length}`, parent: last.id, turn: last.turn, time: last.time } as Item);
    }
    expect(JSON.stringify((await rebuildRequest(path)).items)).toBe(JSON.stringify(a.items));
  });

  it('/compact climbs the harness ladder from the slash context', async () => {
    const history = new MemoryWorkspace().history('c1');
    history.adopt(toolHeavy().items);
    const seen: string[] = [];
    const spy: Rung = {
      name: 'audit',
      when: () => true,
      apply: (s) => {
        seen.push(`${s.items.length} items`);
        return {
          report: {
            rung: 'audit',
            applied: false,
            tokensBefore: 0,
            tokensAfter: 0,
            items: [],
            reason: 'looked',
          },
        };
      },
    };
    const out = await runSlash('/compact', {
      history,
      compaction: { model: 'claude-sonnet-4-5', budget: { window: 60_000 }, ladder: [spy, elideRung] },
    });
    expect(seen).toEqual([`${toolHeavy().items.length} items`]);
    expect(out.output).toMatch(/audit +skipped: looked/);
    expect(out.output).toMatch(/elide/);
    expect(out.output).not.toMatch(/snapshot|summarize/);
  });

  it('runs the custom rung of docs/compaction.md (harness rung first, shed before elide, no snapshots)', async () => {
    // Copied from the docs: drop reasoning older than the last turn from the request.
    const dropOldReasoning: Rung = {
      name: 'old-reasoning',
      when: (s) => (s.fits() ? { skip: 'request already fits' } : true),
      apply(s) {
        const last = Math.max(...s.items.map((i) => i.turn));
        const items = s.items.filter((i) => i.kind !== 'reasoning' || i.turn === last);
        const tokens = items.map(s.options.estimate);
        const sum = (t: readonly number[]) => t.reduce((a, b) => a + b, 0);
        const gone = s.items.filter((i) => !items.includes(i)).map((i) => i.id);
        return {
          items,
          tokens,
          report: {
            rung: 'old-reasoning',
            applied: gone.length > 0,
            tokensBefore: sum(s.tokens),
            tokensAfter: sum(tokens),
            items: gone,
            reason: `${gone.length} reasoning items left out`,
          },
        };
      },
    };
    const b = new Builder();
    b.person('Task.');
    for (let t = 0; t < 6; t++) {
      b.items.push({ ...b.model(''), kind: 'reasoning', text: filler(30_000, `think${t}`) } as Item);
      b.items.splice(b.items.length - 2, 1);
      b.person(`next ${t}`);
    }
    const r = await climb(
      b.items,
      options({ ladder: [dropOldReasoning, shedRung, elideRung, summarizeRung] }),
    );
    expect(r.report.rungs[0]).toMatchObject({ rung: 'old-reasoning', applied: true });
    expect(r.items.filter((i) => i.kind === 'reasoning')).toHaveLength(0);
    expect(r.report.fits).toBe(true);
  });
});
