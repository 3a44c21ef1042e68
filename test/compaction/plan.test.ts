import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validCuts } from '../../src/compaction/cuts.js';
import { planSnapshot } from '../../src/compaction/plan.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, charEstimate, filler } from './builder.js';

function segmentsCover(items: Item[], plan: ReturnType<typeof planSnapshot>): void {
  let at = plan.headEnd;
  for (const s of plan.middle) {
    expect(s.from).toBe(at);
    expect(s.to).toBeGreaterThan(s.from);
    at = s.to;
  }
  expect(at).toBe(plan.tailStart);
  const cuts = validCuts(items);
  for (const b of [plan.headEnd, plan.tailStart, ...plan.middle.map((s) => s.from)]) expect(cuts[b]).toBe(1);
}

describe('planSnapshot', () => {
  it('keeps head, person messages in the middle, and the tail verbatim', () => {
    const b = new Builder();
    b.items.push({
      kind: 'context',
      author: 'surface',
      id: 'ctx',
      parent: null,
      turn: 0,
      time: '',
      text: 'CLAUDE.md',
    });
    b.person('Task: port the parser. Never touch vendor/.');
    for (let i = 0; i < 4; i++) b.tool('read', { i }, filler(4000));
    const correction = b.person('No, use tabs not spaces.');
    for (let i = 0; i < 4; i++) b.tool('read', { i }, filler(4000));
    b.person('Now run the tests.');
    b.tool('bash', { cmd: 'npm test' }, filler(400));
    const items = b.items;
    const tokens = items.map(charEstimate);
    const plan = planSnapshot(items, tokens, { tailBudget: 300, personBudget: 1000 });
    expect(plan.headEnd).toBe(2);
    expect(items[plan.tailStart]!.kind).not.toBe('tool_result');
    segmentsCover(items, plan);
    const verbatim = plan.middle.filter((s) => s.verbatim);
    expect(verbatim.map((s) => items.slice(s.from, s.to).map((i) => i.id))).toEqual([[correction.id]]);
    expect(plan.middle.filter((s) => !s.verbatim)).toHaveLength(2);
    // "Now run the tests." sits in the tail; the correction is the one kept in the middle.
    expect(items[plan.tailStart]).toMatchObject({ text: 'Now run the tests.' });
    expect(plan.personKept).toBe(1);
  });

  it('images person messages the budget cannot hold, oldest first', () => {
    const b = new Builder();
    b.person('task');
    for (let k = 0; k < 4; k++) {
      b.tool('read', { k }, filler(4000));
      b.person(`correction ${k} ` + filler(400));
    }
    b.tool('read', { k: 9 }, filler(4000));
    const tokens = b.items.map(charEstimate);
    const plan = planSnapshot(b.items, tokens, { tailBudget: 10, personBudget: 250 });
    // The latest correction opens the tail whatever its budget; of the three before it, two fit.
    expect(b.items[plan.tailStart]).toMatchObject({
      author: 'person',
      text: expect.stringMatching(/^correction 3/),
    });
    expect(plan.personKept).toBe(2);
    expect(plan.personImaged).toBe(1);
    const imaged = plan.middle.filter((m) => !m.verbatim).flatMap((m) => b.items.slice(m.from, m.to));
    expect(
      imaged.filter((i) => i.author === 'person').map((i) => i.kind === 'message' && i.text.slice(0, 12)),
    ).toEqual(['correction 0']);
    segmentsCover(b.items, plan);
  });

  it('never splits a call from its result, even with parallel calls', () => {
    const b = new Builder();
    b.person('go');
    b.call('a', {}, 'A');
    b.call('b', {}, 'B');
    b.result('A', 'a', filler(2000));
    b.person('interjection while B runs');
    b.result('B', 'b', filler(2000));
    b.model('done');
    const tokens = b.items.map(charEstimate);
    const plan = planSnapshot(b.items, tokens, {
      tailBudget: 600,
      personBudget: 100,
      tailFromLatestPerson: false,
    });
    segmentsCover(b.items, plan);
    // The tail cannot start at B's result; the interjection's island takes the whole call group.
    expect(plan.tailStart).toBe(6);
    expect(plan.middle).toEqual([{ from: 1, to: 6, verbatim: true }]);
    // By default the interjection is the latest person message: the tail reaches back to the valid
    // cut before it, which takes the whole call group.
    const current = planSnapshot(b.items, tokens, { tailBudget: 600, personBudget: 100 });
    segmentsCover(b.items, current);
    expect(current.tailStart).toBe(1);
    expect(current.middle).toEqual([]);
  });

  it('holds the invariants on random histories', () => {
    const step = fc.oneof(
      fc.record({ t: fc.constant('person' as const), n: fc.integer({ min: 1, max: 3000 }) }),
      fc.record({ t: fc.constant('tool' as const), n: fc.integer({ min: 1, max: 3000 }) }),
      fc.record({ t: fc.constant('par' as const), n: fc.integer({ min: 1, max: 3000 }) }),
      fc.record({ t: fc.constant('model' as const), n: fc.integer({ min: 1, max: 300 }) }),
    );
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 2000 }),
        (steps, tailBudget, personBudget) => {
          const b = new Builder();
          let k = 0;
          for (const s of steps) {
            const text = 'x'.repeat(s.n);
            if (s.t === 'person') b.person(text);
            else if (s.t === 'model') b.model(text);
            else if (s.t === 'tool') b.tool('t', { k: k++ }, text);
            else {
              b.call('p', {}, `P${k}`);
              b.call('q', {}, `Q${k}`);
              b.result(`P${k}`, 'p', text);
              b.result(`Q${k}`, 'q', text);
              k++;
            }
          }
          const plan = planSnapshot(b.items, b.items.map(charEstimate), { tailBudget, personBudget });
          segmentsCover(b.items, plan);
          if (b.items.length > plan.headEnd) expect(plan.tailStart).toBeLessThan(b.items.length);
          // The latest person message outside the head is in the tail, never in the middle.
          const latest = b.items.findLastIndex((i) => i.kind === 'message' && i.author === 'person');
          if (latest >= plan.headEnd) expect(plan.tailStart).toBeLessThanOrEqual(latest);
        },
      ),
    );
  });
});
