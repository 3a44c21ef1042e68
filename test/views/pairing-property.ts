/**
 * The pairing property (issue 18), shared by the full run in the normal suite
 * (pairing.property.test.ts, 1,000 paths) and the short run the mutation test set uses
 * (pairing-quick.test.ts): random trees with every violation kind, cut and elided, repaired, checked
 * by rule and in every wire format.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Item, NewItem } from '../../src/transcript/items.js';
import {
  repairPairing,
  validatePairing,
  wireView,
  WIRE_PROVIDERS,
  type WireBody,
} from '../../src/views/index.js';
import { VALIDATORS } from '../helpers/wire-shapes.js';

export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

type Op =
  | { t: 'person' }
  | { t: 'context' }
  | { t: 'summary' }
  | { t: 'model'; text: boolean; reasoning: boolean; calls: number; between: boolean }
  // A result for a recent call (`recent`: one of the last three) or for any id (often an orphan).
  | { t: 'result'; call: number; recent: boolean; image: boolean; error: boolean }
  // A result for the call that will be made next: it arrives before its call.
  | { t: 'early' }
  // A later call that reuses an earlier call's id, answered right away (the sequential reuse shape).
  | { t: 'reuse'; call: number }
  // A second result for a call that was already answered.
  | { t: 'again'; call: number };

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ t: 'person' } as Op) },
  { weight: 1, arbitrary: fc.constant({ t: 'context' } as Op) },
  { weight: 1, arbitrary: fc.constant({ t: 'summary' } as Op) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('model' as const),
      text: fc.boolean(),
      reasoning: fc.boolean(),
      calls: fc.integer({ min: 0, max: 3 }),
      between: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('reuse' as const), call: fc.integer({ min: 0, max: 12 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('again' as const), call: fc.integer({ min: 0, max: 12 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ t: 'early' } as Op) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('result' as const),
      call: fc.integer({ min: 0, max: 12 }),
      recent: fc.boolean(),
      image: fc.boolean(),
      error: fc.boolean(),
    }),
  },
);

const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';

/** Builds a tree: each item continues from a random earlier item (or the previous one). */
export function buildTree(ops: Op[], parents: number[]): Item[] {
  const items: Item[] = [];
  let callNo = 0;
  const push = (n: NewItem): void => {
    const i = items.length;
    // One item in four branches off an earlier item; the rest continue from the previous one.
    const r = parents[i % parents.length]!;
    const p = i === 0 ? null : items[r % 4 === 0 ? r % i : i - 1]!.id;
    items.push({
      ...n,
      id: `i${i}`,
      parent: p,
      turn: 1 + Math.floor(i / 5),
      time: '2026-11-29T00:00:00.000Z',
    } as Item);
  };
  for (const op of ops) {
    switch (op.t) {
      case 'person':
        push({ kind: 'message', author: 'person', text: 'hi' });
        break;
      case 'context':
        push({ kind: 'context', author: 'surface', text: 'ctx' });
        break;
      case 'summary':
        push({ kind: 'summary', author: 'machinery', text: 'sum' });
        break;
      case 'model':
        if (op.reasoning)
          push({ kind: 'reasoning', author: 'model', text: 'r', provider: 'anthropic', signature: 's' });
        if (op.text) push({ kind: 'message', author: 'model', text: 'm' });
        for (let k = 0; k < op.calls; k++) {
          // Reasoning between parallel calls (interleaved thinking) is part of the same model run.
          if (op.between && k > 0)
            push({ kind: 'reasoning', author: 'model', text: 'r', provider: 'anthropic', signature: 's' });
          push({ kind: 'tool_call', author: 'model', callId: `c${callNo++ % 13}`, name: 'f', input: { k } });
        }
        break;
      case 'early':
        push({
          kind: 'tool_result',
          author: 'machinery',
          callId: `c${callNo % 13}`,
          name: 'f',
          content: [{ type: 'text', text: 'early' }],
        });
        break;
      case 'reuse':
      case 'again': {
        // An id already called (the most recent few, so it is likely on the same path).
        const id = `c${Math.max(0, callNo - 1 - (op.call % 3)) % 13}`;
        if (op.t === 'reuse') push({ kind: 'tool_call', author: 'model', callId: id, name: 'f', input: {} });
        push({
          kind: 'tool_result',
          author: 'machinery',
          callId: id,
          name: 'f',
          content: [{ type: 'text', text: 'o' }],
        });
        break;
      }
      case 'result':
        push({
          kind: 'tool_result',
          author: 'machinery',
          callId: op.recent ? `c${Math.max(0, callNo - 1 - (op.call % 3)) % 13}` : `c${op.call}`,
          name: 'f',
          content: [
            { type: 'text', text: 'out' },
            ...(op.image
              ? [{ type: 'image' as const, mediaType: 'image/png' as const, data: TINY_PNG }]
              : []),
          ],
          ...(op.error ? { isError: true } : {}),
        });
        break;
    }
  }
  return items;
}

export function pathTo(items: Item[], tip: number): Item[] {
  const byId = new Map(items.map((i) => [i.id, i]));
  const out: Item[] = [];
  for (let cur: Item | undefined = items[tip]; cur; cur = cur.parent ? byId.get(cur.parent) : undefined)
    out.push(cur);
  return out.reverse();
}

/** What a run saw: paths, paths needing repair, bodies checked, and paths per violation kind. */
export interface PropertyCounts {
  paths: number;
  broken: number;
  sent: number;
  kinds: Map<string, number>;
}

/** Runs the property over `numRuns` random paths from `seed`; returns the counts for non-vacuity checks. */
export function pairingProperty(numRuns: number, seed: number): PropertyCounts {
  let broken = 0;
  let sent = 0;
  let paths = 0;
  const kinds = new Map<string, number>();
  fc.assert(
    fc.property(
      fc.array(opArb, { minLength: 1, maxLength: 40, size: 'max' }),
      fc.array(fc.nat(1000), { minLength: 1, maxLength: 40 }),
      fc.nat(),
      fc.nat(40),
      fc.array(fc.nat(60), { maxLength: 6 }),
      (ops, parents, tipSeed, cut, elide) => {
        const tree = buildTree(ops, parents);
        const full = pathTo(tree, tipSeed % tree.length);
        // A cut (resume trimmed to the newest items) and elisions (items removed from the request).
        const path = deepFreeze(
          full.slice(Math.min(cut, full.length - 1)).filter((_, i) => !elide.includes(i)),
        );
        const snapshot = JSON.stringify(path);
        paths++;
        const violations = validatePairing(path);
        if (violations.length > 0) broken++;
        for (const k of new Set(violations.map((v) => v.kind))) kinds.set(k, (kinds.get(k) ?? 0) + 1);
        const { items, repairs } = repairPairing(path);
        expect(validatePairing(items)).toEqual([]);
        // Every real action is kept: no call is ever dropped; a result is dropped only when reported.
        const count = (xs: readonly Item[], kind: Item['kind']): number =>
          xs.filter((i) => i.kind === kind).length;
        expect(count(items, 'tool_call')).toBe(count(path, 'tool_call'));
        const synthesized = repairs.filter((r) => r.kind === 'synthesized_result').length;
        const droppedResults = repairs.filter((r) => r.kind.startsWith('dropped_')).length;
        expect(count(items, 'tool_result') - synthesized).toBe(count(path, 'tool_result') - droppedResults);
        expect(items.length).toBe(path.length + synthesized - droppedResults);
        // Idempotent and deterministic: a repaired path needs no repair; the same path, the same bytes.
        expect(repairPairing(items).repairs).toEqual([]);
        expect(JSON.stringify(repairPairing(path))).toBe(
          JSON.stringify({ items, repairs: repairPairing(path).repairs }),
        );
        // Exactly one result per call, in call order, directly after the call's run.
        const calls = items
          .filter((i) => i.kind === 'tool_call')
          .map((i) => (i as { callId: string }).callId);
        const results = items
          .filter((i) => i.kind === 'tool_result')
          .map((i) => (i as { callId: string }).callId);
        expect(results).toEqual(calls);
        for (const provider of WIRE_PROVIDERS) {
          let body: WireBody;
          try {
            body = wireView(provider, path, { model: 'm' }).body;
          } catch (err) {
            // A path with nothing this format carries (e.g. only foreign reasoning) is refused by name.
            expect(String(err)).toMatch(/nothing to send/);
            continue;
          }
          expect(VALIDATORS[provider](body), provider).toEqual([]);
          sent++;
        }
        expect(JSON.stringify(path)).toBe(snapshot);
      },
    ),
    { numRuns, seed },
  );
  return { paths, broken, sent, kinds };
}

/** The six violation kinds the generator must produce. */
export const VIOLATION_KINDS = [
  'orphan_result',
  'result_before_call',
  'missing_result',
  'duplicate_call',
  'duplicate_result',
  'misplaced_result',
] as const;
