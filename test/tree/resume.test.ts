import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/transcript/items.js';
import { blockedCuts, resumeCut } from '../../src/tree/resume.js';

const time = '2026-11-29T00:00:00.000Z';

/** A path from a list of steps: 'm' message, 'c' call (opens the next callId), 'r' result of the oldest open call. */
function pathOf(steps: string[]): Item[] {
  const open: string[] = [];
  let next = 0;
  return steps.map((s, i): Item => {
    const base = { id: `i${i}`, parent: i === 0 ? null : `i${i - 1}`, turn: 1, time };
    if (s === 'c') {
      const callId = `k${next++}`;
      open.push(callId);
      return { ...base, kind: 'tool_call', author: 'model', callId, name: 't', input: {} };
    }
    if (s === 'r' && open.length > 0)
      return {
        ...base,
        kind: 'tool_result',
        author: 'machinery',
        callId: open.shift()!,
        name: 't',
        content: [],
      };
    return { ...base, kind: 'message', author: 'person', text: 'x'.repeat(i % 7) };
  });
}

describe('resumeCut', () => {
  it('never separates a call from its result, keeps within budget, and cuts as little as it can', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('m', 'c', 'r'), { maxLength: 40 }), fc.nat(45), (steps, max) => {
        const path = pathOf(steps);
        const r = resumeCut(path, [], { maxItems: max });
        expect(r.items.length).toBeLessThanOrEqual(max);
        expect(r.items).toEqual(path.slice(r.omitted));
        const kept = new Set(r.items.map((i) => i.id));
        const callAt = new Map<string, string>();
        for (const i of path) if (i.kind === 'tool_call') callAt.set(i.callId, i.id);
        for (const i of r.items) {
          if (i.kind === 'tool_result') expect(kept.has(callAt.get(i.callId)!)).toBe(true);
        }
        for (const i of path) {
          if (i.kind !== 'tool_call' || !kept.has(i.id)) continue;
          const res = path.find((x) => x.kind === 'tool_result' && x.callId === i.callId);
          if (res) expect(kept.has(res.id)).toBe(true);
        }
        // Minimal: every earlier start that fits the budget would split a pair.
        const blocked = blockedCuts(path);
        for (let s = Math.max(0, path.length - max); s < r.omitted; s++) expect(blocked[s]).toBe(true);
      }),
    );
  });

  it('drops (never clamps) checkpoints whose item was cut, and says why', () => {
    const path = pathOf(['m', 'm', 'c', 'r', 'm']);
    const cp = (label: string, at: string | null) => ({ label, at, turn: 1, time, files: {} });
    const r = resumeCut(path, [cp('start', null), cp('one', 'i1'), cp('four', 'i4'), cp('elsewhere', 'zz')], {
      maxItems: 3,
    });
    expect(r.items.map((i) => i.id)).toEqual(['i2', 'i3', 'i4']);
    expect(r.checkpoints.map((c) => c.label)).toEqual(['four']);
    expect(r.dropped.map((d) => [d.checkpoint.label, d.reason])).toEqual([
      ['start', 'the start of the history was cut'],
      ['one', 'item i1 was cut'],
      ['elsewhere', 'item zz is not on the active path'],
    ]);
    expect(resumeCut(path, [cp('start', null)], { maxItems: 10 }).checkpoints).toHaveLength(1);
    expect(() => resumeCut(path, [], { maxItems: -1 })).toThrow(/maxItems expected a non-negative integer/);
  });
});
