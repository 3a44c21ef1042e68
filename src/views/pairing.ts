/**
 * Tool call / result pairing: the invariant every provider enforces and every harness breaks sooner
 * or later (after a cut, a resume, an interrupt). See PEERS.md row 1.
 *
 * The invariant, on a path: take each maximal run of consecutive model-authored items (message,
 * reasoning, tool_call). Its tool calls c1…cn must be followed immediately by exactly n tool results
 * r1…rn with ri.callId === ci.callId. A result anywhere else is a violation.
 *
 * `repairPairing` enforces it on a copy: results are placed right after their call's run, in call
 * order; a call without a result gets a deterministic synthetic error result (ids derived from the
 * call id so a rebuilt request is byte-identical and the prompt cache holds); a call that reuses an
 * earlier call's id is re-keyed with its result (never dropped: it is a real action); results without
 * a call, results before their call and second results are dropped. Items that sat between a call and its result
 * stay where they were relative to each other, after the results. The input array is never mutated.
 */
import type { Item, ToolCallItem, ToolResultItem } from '../transcript/items.js';
import type { Repair } from './types.js';

export type PairingViolationKind =
  | 'orphan_result'
  | 'result_before_call'
  | 'missing_result'
  | 'duplicate_call'
  | 'duplicate_result'
  | 'misplaced_result';

/** One broken rule, naming the item and call it is about. */
export interface PairingViolation {
  kind: PairingViolationKind;
  itemId: string;
  callId: string;
  /** Index of the offending item in the path. */
  index: number;
  detail: string;
}

/** The text of a synthetic result; exported so UIs and tests can recognise it. */
export const NO_RESULT_TEXT = 'No result recorded for this tool call: its output is not in the record.';

/**
 * The wire id of the `n`th call (n ≥ 2) that reuses call id `callId`. Letters, digits, `_` and `-`
 * only, so every provider's id rule accepts it when `callId` does.
 */
export function rekeyedCallId(callId: string, n: number): string {
  return `${callId}-${n}`;
}

/** Deterministic id of the synthetic result for a call: same call, same id, same bytes. */
export function syntheticResultId(callItemId: string): string {
  return `${callItemId}~no-result`;
}

function isModelRunItem(item: Item): boolean {
  return (
    item.author === 'model' &&
    (item.kind === 'message' || item.kind === 'reasoning' || item.kind === 'tool_call')
  );
}

/** Splits a path into model runs: index ranges [start, end) of consecutive model items. */
function modelRuns(path: readonly Item[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  let i = 0;
  while (i < path.length) {
    if (!isModelRunItem(path[i]!)) {
      i++;
      continue;
    }
    const start = i;
    while (i < path.length && isModelRunItem(path[i]!)) i++;
    runs.push([start, i]);
  }
  return runs;
}

/** Names every pairing violation in a path, in path order. An empty array means the path is sendable. */
export function validatePairing(path: readonly Item[]): PairingViolation[] {
  const violations: PairingViolation[] = [];
  const callIndex = new Map<string, number>();
  const seenResult = new Set<string>();
  // Where each call's result must sit: callId → expected index.
  const expected = new Map<string, number>();
  for (const [start, end] of modelRuns(path)) {
    let slot = end;
    for (let i = start; i < end; i++) {
      const item = path[i]!;
      if (item.kind !== 'tool_call') continue;
      if (callIndex.has(item.callId)) continue; // reported below as a duplicate
      callIndex.set(item.callId, i);
      expected.set(item.callId, slot++);
    }
  }
  const firstCall = new Map<string, number>();
  for (let i = 0; i < path.length; i++) {
    const item = path[i]!;
    if (item.kind === 'tool_call') {
      if (firstCall.has(item.callId)) {
        violations.push({
          kind: 'duplicate_call',
          itemId: item.id,
          callId: item.callId,
          index: i,
          detail: `call id '${item.callId}' already used by the call at index ${firstCall.get(item.callId)}`,
        });
      } else firstCall.set(item.callId, i);
      continue;
    }
    if (item.kind !== 'tool_result') continue;
    const at = callIndex.get(item.callId);
    if (at === undefined) {
      violations.push({
        kind: 'orphan_result',
        itemId: item.id,
        callId: item.callId,
        index: i,
        detail: `result for call '${item.callId}' has no tool call in the path`,
      });
    } else if (at > i) {
      violations.push({
        kind: 'result_before_call',
        itemId: item.id,
        callId: item.callId,
        index: i,
        detail: `result at index ${i} comes before its call at index ${at}`,
      });
    } else if (seenResult.has(item.callId)) {
      violations.push({
        kind: 'duplicate_result',
        itemId: item.id,
        callId: item.callId,
        index: i,
        detail: `second result for call '${item.callId}'`,
      });
    } else {
      seenResult.add(item.callId);
      const want = expected.get(item.callId)!;
      if (want !== i) {
        violations.push({
          kind: 'misplaced_result',
          itemId: item.id,
          callId: item.callId,
          index: i,
          detail: `expected at index ${want} (right after its call's turn, in call order), found at index ${i}`,
        });
      }
    }
  }
  for (const [callId, at] of callIndex) {
    if (!seenResult.has(callId)) {
      violations.push({
        kind: 'missing_result',
        itemId: path[at]!.id,
        callId,
        index: at,
        detail: `tool call '${callId}' has no result in the path`,
      });
    }
  }
  return violations.sort((a, b) => a.index - b.index);
}

function synthesize(call: ToolCallItem): ToolResultItem {
  return {
    id: syntheticResultId(call.id),
    parent: call.id,
    turn: call.turn,
    time: call.time,
    author: 'machinery',
    kind: 'tool_result',
    callId: call.callId,
    name: call.name,
    content: [{ type: 'text', text: NO_RESULT_TEXT }],
    isError: true,
  };
}

/**
 * Returns a copy of the path that satisfies the pairing invariant, and what was changed.
 * Deterministic: the same path always gives the same items and repairs.
 *
 * Every real action is kept. A call whose id was already used earlier in the path (recorders that
 * reuse one id for sequential, correctly paired calls) is re-keyed to `rekeyedCallId(id, n)` together
 * with the results that belong to it; the new id depends only on the items before it, so appending to
 * the path never changes bytes already sent and the prompt cache holds. A result belongs to a call
 * with its id that comes before it: the earliest still unanswered one in the latest model run that
 * holds such a call. Only results that belong to no call (orphans, results before their call) and
 * second results of an answered call are dropped; every change is reported.
 */
export function repairPairing(path: readonly Item[]): { items: Item[]; repairs: Repair[] } {
  const repairs: Repair[] = [];
  const runOf = new Map<number, number>();
  modelRuns(path).forEach(([start, end], r) => {
    for (let i = start; i < end; i++) runOf.set(i, r);
  });

  // Calls: the wire id of each (re-keyed when its id is already taken by an earlier call).
  const wireId = new Map<number, string>();
  const used = new Set<string>();
  const seen = new Map<string, number>(); // original id → calls seen so far with it
  const callsById = new Map<string, number[]>(); // original id → call indices, in path order
  for (let i = 0; i < path.length; i++) {
    const item = path[i]!;
    if (item.kind !== 'tool_call') continue;
    const n = (seen.get(item.callId) ?? 0) + 1;
    seen.set(item.callId, n);
    let id = item.callId;
    if (used.has(id)) {
      let k = n;
      do id = rekeyedCallId(item.callId, k++);
      while (used.has(id));
      repairs.push({
        kind: 'rekeyed_duplicate_id',
        itemId: item.id,
        callId: item.callId,
        detail: `call id '${item.callId}' was already used earlier in the path; sent as '${id}' with its result`,
      });
    }
    used.add(id);
    wireId.set(i, id);
    const list = callsById.get(item.callId) ?? [];
    list.push(i);
    callsById.set(item.callId, list);
  }

  // Results: each binds to one call (by index) or is dropped.
  const resultOf = new Map<number, number>(); // call index → result index
  const dropped = new Set<number>();
  for (let i = 0; i < path.length; i++) {
    const item = path[i]!;
    if (item.kind !== 'tool_result') continue;
    const before = (callsById.get(item.callId) ?? []).filter((c) => c < i);
    if (before.length === 0) {
      dropped.add(i);
      const later = callsById.get(item.callId)?.[0];
      repairs.push({
        kind: 'dropped_orphan_result',
        itemId: item.id,
        callId: item.callId,
        detail:
          later === undefined
            ? `result for call '${item.callId}' has no tool call in the path`
            : `result comes before its call (index ${i} < ${later})`,
      });
      continue;
    }
    const run = runOf.get(before[before.length - 1]!);
    const call = before.find((c) => runOf.get(c) === run && !resultOf.has(c));
    if (call === undefined) {
      dropped.add(i);
      repairs.push({
        kind: 'dropped_duplicate_result',
        itemId: item.id,
        callId: item.callId,
        detail: `second result for call '${item.callId}'`,
      });
    } else resultOf.set(call, i);
  }

  const out: Item[] = [];
  const placed = new Set<number>();
  let i = 0;
  while (i < path.length) {
    const item = path[i]!;
    if (!isModelRunItem(item)) {
      if (!dropped.has(i) && !placed.has(i)) out.push(item);
      i++;
      continue;
    }
    const calls: number[] = [];
    while (i < path.length && isModelRunItem(path[i]!)) {
      const m = path[i]!;
      if (m.kind === 'tool_call') {
        calls.push(i);
        const id = wireId.get(i)!;
        out.push(id === m.callId ? m : { ...m, callId: id });
      } else out.push(m);
      i++;
    }
    for (let k = 0; k < calls.length; k++) {
      const c = calls[k]!;
      const call = path[c] as ToolCallItem;
      const id = wireId.get(c)!;
      const at = resultOf.get(c);
      if (at === undefined) {
        const result = synthesize(id === call.callId ? call : { ...call, callId: id });
        out.push(result);
        repairs.push({
          kind: 'synthesized_result',
          itemId: call.id,
          callId: call.callId,
          detail: `no result recorded; sent '${result.id}' as an error result`,
        });
        continue;
      }
      const result = path[at] as ToolResultItem;
      out.push(id === result.callId ? result : { ...result, callId: id });
      placed.add(at);
      if (at !== i + k) {
        repairs.push({
          kind: 'moved_result',
          itemId: result.id,
          callId: call.callId,
          detail: `result moved from index ${at} to directly after its call's turn (call order)`,
        });
      }
    }
  }
  return { items: out, repairs };
}
