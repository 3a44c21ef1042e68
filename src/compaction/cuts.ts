/**
 * Where a history may be cut. A cut at index i splits `items[0..i)` from `items[i..]`; it is valid when
 * no tool call before i has its result at or after i, so nothing ever lands between a call and its
 * result and no tail starts with an orphaned result (PEERS.md pain #1).
 */
import type { Item } from '../transcript/items.js';

/**
 * `cuts[i]` is true when a cut before index i keeps every call with its result (`cuts.length ===
 * items.length + 1`; 0 and the end are always valid). A call without any result never blocks a cut:
 * the view's repair pass answers it, wherever it sits.
 */
export function validCuts(items: readonly Item[]): Uint8Array {
  const lastResult = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (it.kind === 'tool_result') lastResult.set(it.callId, i);
  }
  const cuts = new Uint8Array(items.length + 1);
  // `reach` is the furthest index an open call still needs (its last result).
  let reach = -1;
  for (let i = 0; i < items.length; i++) {
    cuts[i] = i > reach ? 1 : 0;
    const it = items[i]!;
    if (it.kind === 'tool_call') {
      const r = lastResult.get(it.callId);
      if (r !== undefined && r > i && r > reach) reach = r;
    }
  }
  cuts[items.length] = 1;
  return cuts;
}

/** The first valid cut at or after `i`. */
export function cutAtOrAfter(cuts: Uint8Array, i: number): number {
  let j = Math.max(0, i);
  while (j < cuts.length - 1 && !cuts[j]) j++;
  return Math.min(j, cuts.length - 1);
}

/** The last valid cut at or before `i`. */
export function cutAtOrBefore(cuts: Uint8Array, i: number): number {
  let j = Math.min(i, cuts.length - 1);
  while (j > 0 && !cuts[j]) j--;
  return Math.max(j, 0);
}
