import { describe, expect, it } from 'vitest';
import {
  NO_RESULT_TEXT,
  rekeyedCallId,
  repairPairing,
  syntheticResultId,
  validatePairing,
  wireView,
  WIRE_PROVIDERS,
} from '../../src/views/index.js';
import { VALIDATORS } from '../helpers/wire-shapes.js';
import { PathBuilder } from './fixtures.js';
import { deepFreeze } from './pairing-property.js';

describe('validatePairing', () => {
  it('accepts a well-paired path with parallel calls', () => {
    const b = new PathBuilder()
      .person('go')
      .model('')
      .call('a', 'f', {})
      .call('b', 'f', {})
      .result('a', 'f', '1')
      .result('b', 'f', '2')
      .model('done');
    expect(validatePairing(b.items)).toEqual([]);
  });

  it('names each violation with item id, call id and kind', () => {
    const b = new PathBuilder()
      .result('zz', 'f', 'orphan') // p1
      .person('go') // p2
      .call('a', 'f', {}) // p3
      .call('b', 'f', {}) // p4
      .result('b', 'f', 'b first') // p5: out of order
      .add({ kind: 'context', author: 'surface', text: 'between' }) // p6
      .result('a', 'f', 'a late') // p7
      .result('a', 'f', 'again') // p8
      .call('c', 'f', {}) // p9: never answered
      .call('c', 'f', {}); // p10: duplicate id
    const v = validatePairing(b.items).map((x) => [x.kind, x.itemId, x.callId]);
    expect(v).toEqual([
      ['orphan_result', 'p1', 'zz'],
      ['misplaced_result', 'p5', 'b'],
      ['misplaced_result', 'p7', 'a'],
      ['duplicate_result', 'p8', 'a'],
      ['missing_result', 'p9', 'c'],
      ['duplicate_call', 'p10', 'c'],
    ]);
  });
});

describe('repairPairing', () => {
  it('drops orphans, synthesises missing results with call-derived ids, leaves the input untouched', () => {
    const b = new PathBuilder()
      .result('gone', 'f', 'orphan')
      .person('go')
      .call('a', 'read', { p: 1 })
      .person('next');
    const input = deepFreeze(b.items);
    const snapshot = JSON.stringify(input);
    const { items, repairs } = repairPairing(input);
    expect(JSON.stringify(input)).toBe(snapshot);
    expect(items.map((i) => i.id)).toEqual(['p2', 'p3', syntheticResultId('p3'), 'p4']);
    const synthetic = items[2]!;
    expect(synthetic).toMatchObject({ kind: 'tool_result', callId: 'a', name: 'read', isError: true });
    expect(synthetic.kind === 'tool_result' && synthetic.content).toEqual([
      { type: 'text', text: NO_RESULT_TEXT },
    ]);
    expect(repairs.map((r) => [r.kind, r.itemId, r.callId])).toEqual([
      ['dropped_orphan_result', 'p1', 'gone'],
      ['synthesized_result', 'p3', 'a'],
    ]);
    // Deterministic: same input, same output bytes.
    expect(JSON.stringify(repairPairing(input))).toBe(JSON.stringify({ items, repairs }));
  });

  it('puts nothing between a call and its result: what sat there moves after the results', () => {
    const b = new PathBuilder()
      .person('go')
      .call('a', 'f', {})
      .call('b', 'f', {})
      .add({ kind: 'summary', author: 'machinery', text: 'compacted here' }) // the pi #8667 shape
      .result('b', 'f', '2')
      .add({ kind: 'context', author: 'surface', text: 'ide state' })
      .result('a', 'f', '1');
    const { items, repairs } = repairPairing(b.items);
    expect(items.map((i) => i.id)).toEqual(['p1', 'p2', 'p3', 'p7', 'p5', 'p4', 'p6']);
    expect(repairs.every((r) => r.kind === 'moved_result')).toBe(true);
    expect(validatePairing(items)).toEqual([]);
  });
});

describe('repairPairing keeps every real action when a recorder reuses call ids', () => {
  /** The shape of a published OpenAI Chat benchmark trajectory: 27 sequential calls, 22 distinct ids. */
  function reusedIds(): PathBuilder {
    const b = new PathBuilder().person('fix the failing test');
    for (let n = 0; n < 27; n++) {
      const id = n < 22 ? `call_${n}` : `call_${(n - 22) * 4}`; // calls 22…26 reuse ids 0, 4, 8, 12, 16
      b.model(`step ${n}`)
        .call(id, 'bash', { cmd: `step ${n}` })
        .result(id, 'bash', `output ${n}`);
    }
    return b.model('done');
  }

  it('re-keys sequential calls that reuse an id, with their results, and drops nothing', () => {
    const input = deepFreeze(reusedIds().items);
    const { items, repairs } = repairPairing(input);
    const calls = items.filter((i) => i.kind === 'tool_call');
    const results = items.filter((i) => i.kind === 'tool_result');
    expect(calls).toHaveLength(27);
    expect(results).toHaveLength(27);
    expect(new Set(calls.map((c) => c.callId)).size).toBe(27);
    // Each result still answers the call it followed in the record: same step number, same new id.
    for (let n = 0; n < 27; n++) {
      const call = calls[n]!;
      const result = results[n]!;
      expect(call.kind === 'tool_call' && call.input).toEqual({ cmd: `step ${n}` });
      expect(result.kind === 'tool_result' && result.content).toEqual([
        { type: 'text', text: `output ${n}` },
      ]);
      expect(result.kind === 'tool_result' && result.callId).toBe(call.kind === 'tool_call' && call.callId);
    }
    expect(repairs.map((r) => [r.kind, r.callId])).toEqual(
      [0, 4, 8, 12, 16].map((k) => ['rekeyed_duplicate_id', `call_${k}`]),
    );
    expect(calls[22]!.kind === 'tool_call' && calls[22]!.callId).toBe(rekeyedCallId('call_0', 2));
    expect(validatePairing(items)).toEqual([]);
    // Same record, same bytes; appending to the path leaves every re-keyed id already sent unchanged.
    expect(JSON.stringify(repairPairing(input))).toBe(JSON.stringify({ items, repairs }));
    const longer = reusedIds().call('call_0', 'bash', {}).result('call_0', 'bash', 'again').items;
    expect(repairPairing(longer).items.slice(0, items.length)).toEqual(items);
  });

  it('sends all 27 calls and their outputs in every wire format, ids unique', () => {
    const path = reusedIds().items;
    for (const provider of WIRE_PROVIDERS) {
      const { body, repairs } = wireView(provider, path, { model: 'm' });
      expect(VALIDATORS[provider](body), provider).toEqual([]);
      const text = JSON.stringify(body);
      for (let n = 0; n < 27; n++) expect(text, `${provider} step ${n}`).toContain(`output ${n}`);
      expect(repairs.filter((r) => r.kind === 'rekeyed_duplicate_id')).toHaveLength(5);
    }
    const chat = wireView('openai-chat', path, { model: 'm' }).body as {
      messages: Array<{ role: string; tool_calls?: Array<{ id: string }>; tool_call_id?: string }>;
    };
    const ids = chat.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(ids).toHaveLength(27);
    expect(new Set(ids).size).toBe(27);
    expect(chat.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(ids);
  });

  it('binds parallel calls sharing an id in call order and drops only a true second result', () => {
    const b = new PathBuilder()
      .person('go')
      .call('x', 'f', { k: 1 })
      .call('x', 'f', { k: 2 })
      .result('x', 'f', 'one')
      .result('x', 'f', 'two')
      .result('x', 'f', 'three'); // no call left to answer: a duplicate
    const { items, repairs } = repairPairing(b.items);
    expect(items.map((i) => i.id)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
    expect(items.map((i) => (i.kind === 'tool_call' || i.kind === 'tool_result' ? i.callId : '-'))).toEqual([
      '-',
      'x',
      'x-2',
      'x',
      'x-2',
    ]);
    expect(repairs.map((r) => [r.kind, r.itemId])).toEqual([
      ['rekeyed_duplicate_id', 'p3'],
      ['dropped_duplicate_result', 'p6'],
    ]);
  });

  it('never re-keys onto an id the path already used', () => {
    const b = new PathBuilder()
      .call('x-2', 'f', {})
      .result('x-2', 'f', 'a')
      .call('x', 'f', {})
      .result('x', 'f', 'b')
      .call('x', 'f', {})
      .result('x', 'f', 'c');
    const { items } = repairPairing(b.items);
    const ids = items.filter((i) => i.kind === 'tool_call').map((i) => (i as { callId: string }).callId);
    expect(ids).toEqual(['x-2', 'x', 'x-3']);
    expect(validatePairing(items)).toEqual([]);
  });
});
