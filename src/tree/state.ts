/**
 * The session tree as data: items by id, the tip, checkpoints by label, the last committed turn.
 * `applyEntry` is the one reducer both backends replay their committed entries through, so the memory
 * reference and the disk workspace cannot disagree about what a log means.
 */
import type { Item } from '../transcript/items.js';
import type { Checkpoint, LogEntry, LogProblem } from '../transcript/log.js';

export interface TreeState {
  items: Map<string, Item>;
  /** Items in log order (when they happened). */
  order: Item[];
  tip: string | null;
  /** Latest checkpoint per label. */
  checkpoints: Map<string, Checkpoint>;
  /** Last committed turn number. */
  turn: number;
}

export function emptyState(): TreeState {
  return { items: new Map(), order: [], tip: null, checkpoints: new Map(), turn: 0 };
}

/**
 * Applies one committed entry. Entries that refer to unknown items are reported and skipped (a tip or a
 * checkpoint) or kept and reported (an item with a missing parent: it exists, it is just unreachable
 * from a root — reported, never silently dropped).
 */
export function applyEntry(state: TreeState, entry: LogEntry, line: number, problems: LogProblem[]): void {
  switch (entry.t) {
    case 'item': {
      const item = entry.item;
      if (state.items.has(item.id)) {
        problems.push({
          kind: 'reference',
          line,
          message: `line ${line}: item id ${item.id} appears twice; the later one was ignored`,
        });
        return;
      }
      if (item.parent !== null && !state.items.has(item.parent)) {
        problems.push({
          kind: 'reference',
          line,
          message: `line ${line}: item ${item.id} names parent ${item.parent}, which is not earlier in the log (broken parent chain)`,
        });
      }
      state.items.set(item.id, item);
      state.order.push(item);
      state.tip = item.id;
      return;
    }
    case 'tip':
      if (entry.tip !== null && !state.items.has(entry.tip)) {
        problems.push({
          kind: 'reference',
          line,
          message: `line ${line}: tip moves to unknown item ${entry.tip}; move ignored`,
        });
        return;
      }
      state.tip = entry.tip;
      return;
    case 'checkpoint': {
      const c = entry.checkpoint;
      if (c.at !== null && !state.items.has(c.at)) {
        problems.push({
          kind: 'reference',
          line,
          message: `line ${line}: checkpoint '${c.label}' names unknown item ${c.at}; ignored`,
        });
        return;
      }
      state.checkpoints.set(c.label, c);
      return;
    }
    case 'commit':
      state.turn = Math.max(state.turn, entry.turn);
      return;
  }
}

/** Items root → `tip`, following parents. Stops at a missing parent (already reported on load). */
export function pathTo(state: TreeState, tip: string | null): Item[] {
  const out: Item[] = [];
  const seen = new Set<string>();
  let id = tip;
  while (id !== null) {
    const item = state.items.get(id);
    if (!item || seen.has(id)) break;
    seen.add(id);
    out.push(item);
    id = item.parent;
  }
  return out.reverse();
}

/** Children of `id` (`null`: the roots), in log order. */
export function childrenOf(state: TreeState, id: string | null): Item[] {
  return state.order.filter((item) => item.parent === id);
}
