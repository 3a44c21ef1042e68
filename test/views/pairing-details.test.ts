/**
 * What validatePairing and repairPairing say (issue 18): every violation and every repair names the
 * item, the call and where (indices), in path order; a synthetic result hangs under its call.
 */
import { describe, expect, it } from 'vitest';
import { NO_RESULT_TEXT, repairPairing, syntheticResultId, validatePairing } from '../../src/views/index.js';
import { PathBuilder } from './fixtures.js';

/** One path with every violation kind: indices 0…10. */
function broken(): PathBuilder {
  return new PathBuilder()
    .result('zz', 'f', 'orphan') // 0 p1
    .result('a', 'f', 'early') // 1 p2: before its call
    .person('go') // 2 p3
    .call('a', 'f', {}) // 3 p4
    .call('b', 'f', {}) // 4 p5
    .result('b', 'f', 'b first') // 5 p6: out of order
    .add({ kind: 'context', author: 'surface', text: 'between' }) // 6 p7
    .result('a', 'f', 'a late') // 7 p8
    .result('a', 'f', 'again') // 8 p9
    .call('c', 'f', {}) // 9 p10: never answered
    .call('c', 'f', {}); // 10 p11: duplicate id
}

describe('validatePairing says where', () => {
  it('names kind, item, call, index and a detail with the indices, sorted by index', () => {
    expect(validatePairing(broken().items)).toEqual([
      {
        kind: 'orphan_result',
        itemId: 'p1',
        callId: 'zz',
        index: 0,
        detail: "result for call 'zz' has no tool call in the path",
      },
      {
        kind: 'result_before_call',
        itemId: 'p2',
        callId: 'a',
        index: 1,
        detail: 'result at index 1 comes before its call at index 3',
      },
      {
        kind: 'misplaced_result',
        itemId: 'p6',
        callId: 'b',
        index: 5,
        detail: "expected at index 6 (right after its call's turn, in call order), found at index 5",
      },
      {
        kind: 'misplaced_result',
        itemId: 'p8',
        callId: 'a',
        index: 7,
        detail: "expected at index 5 (right after its call's turn, in call order), found at index 7",
      },
      { kind: 'duplicate_result', itemId: 'p9', callId: 'a', index: 8, detail: "second result for call 'a'" },
      {
        kind: 'missing_result',
        itemId: 'p10',
        callId: 'c',
        index: 9,
        detail: "tool call 'c' has no result in the path",
      },
      {
        kind: 'duplicate_call',
        itemId: 'p11',
        callId: 'c',
        index: 10,
        detail: "call id 'c' already used by the call at index 9",
      },
    ]);
  });

  it('reports only the call that lacks a result, at its own index', () => {
    const b = new PathBuilder().person('go').call('a', 'f', {}).result('a', 'f', '1').call('b', 'f', {});
    expect(validatePairing(b.items).map((v) => [v.kind, v.index])).toEqual([['missing_result', 3]]);
  });
});

describe('repairPairing says what it changed', () => {
  it('names each repair with its detail, and hangs a synthetic result under its call', () => {
    const { items, repairs } = repairPairing(broken().items);
    expect(repairs).toEqual([
      {
        kind: 'rekeyed_duplicate_id',
        itemId: 'p11',
        callId: 'c',
        detail: "call id 'c' was already used earlier in the path; sent as 'c-2' with its result",
      },
      {
        kind: 'dropped_orphan_result',
        itemId: 'p1',
        callId: 'zz',
        detail: "result for call 'zz' has no tool call in the path",
      },
      {
        kind: 'dropped_orphan_result',
        itemId: 'p2',
        callId: 'a',
        detail: 'result comes before its call (index 1 < 3)',
      },
      { kind: 'dropped_duplicate_result', itemId: 'p9', callId: 'a', detail: "second result for call 'a'" },
      {
        kind: 'moved_result',
        itemId: 'p8',
        callId: 'a',
        detail: "result moved from index 7 to directly after its call's turn (call order)",
      },
      {
        kind: 'moved_result',
        itemId: 'p6',
        callId: 'b',
        detail: "result moved from index 5 to directly after its call's turn (call order)",
      },
      {
        kind: 'synthesized_result',
        itemId: 'p10',
        callId: 'c',
        detail: `no result recorded; sent '${syntheticResultId('p10')}' as an error result`,
      },
      {
        kind: 'synthesized_result',
        itemId: 'p11',
        callId: 'c',
        detail: `no result recorded; sent '${syntheticResultId('p11')}' as an error result`,
      },
    ]);
    const call = broken().items[10]!;
    const synthetic = items.find((i) => i.id === syntheticResultId('p11'))!;
    expect(synthetic).toEqual({
      id: syntheticResultId('p11'),
      parent: 'p11',
      turn: call.turn,
      time: call.time,
      author: 'machinery',
      kind: 'tool_result',
      callId: 'c-2',
      name: 'f',
      content: [{ type: 'text', text: NO_RESULT_TEXT }],
      isError: true,
    });
    expect(items.map((i) => i.id)).toEqual([
      'p3',
      'p4',
      'p5',
      'p8',
      'p6',
      'p7',
      'p10',
      'p11',
      syntheticResultId('p10'),
      syntheticResultId('p11'),
    ]);
  });

  it('a result already in place is not reported as moved', () => {
    const b = new PathBuilder()
      .person('go')
      .call('a', 'f', {})
      .call('b', 'f', {})
      .result('a', 'f', '1')
      .result('b', 'f', '2');
    expect(repairPairing(b.items).repairs).toEqual([]);
  });

  it("binds a result to its id's call in the latest model run; an older unanswered call gets a synthetic result", () => {
    const b = new PathBuilder()
      .person('go')
      .call('x', 'f', { n: 1 }) // p2: never answered
      .person('again')
      .call('x', 'f', { n: 2 }) // p4: same id, a later run
      .result('x', 'f', 'for the second') // p5
      .result('x', 'f', 'a second result'); // p6
    const { items, repairs } = repairPairing(b.items);
    expect(items.map((i) => i.id)).toEqual(['p1', 'p2', syntheticResultId('p2'), 'p3', 'p4', 'p5']);
    expect(repairs.map((r) => [r.kind, r.itemId])).toEqual([
      ['rekeyed_duplicate_id', 'p4'],
      ['dropped_duplicate_result', 'p6'],
      ['synthesized_result', 'p2'],
    ]);
  });
});

describe('reasoning inside a model run', () => {
  it('reasoning between parallel calls keeps them one run: their results after both are in place', () => {
    const b = new PathBuilder()
      .person('go')
      .call('a', 'f', {})
      .add({ kind: 'reasoning', author: 'model', text: 'and also', provider: 'anthropic', signature: 's' })
      .call('b', 'f', {})
      .result('a', 'f', '1')
      .result('b', 'f', '2');
    expect(validatePairing(b.items)).toEqual([]);
    expect(repairPairing(b.items).repairs).toEqual([]);
  });

  it('so does a model message between them', () => {
    const b = new PathBuilder()
      .person('go')
      .call('a', 'f', {})
      .model('while that runs')
      .call('b', 'f', {})
      .result('a', 'f', '1')
      .result('b', 'f', '2');
    expect(validatePairing(b.items)).toEqual([]);
    expect(repairPairing(b.items).repairs).toEqual([]);
  });
});
