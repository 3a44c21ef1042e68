/**
 * The session tree as data: item nodes by id, the tip, checkpoints by label, the last committed turn.
 * `applyEntry` is the one reducer both backends replay their committed entries through, so the memory
 * reference and the disk workspace cannot disagree about what a log means.
 *
 * A node holds what the tree needs (id, parent) and, while it fits, the item itself. A backend that can
 * read an item back (the disk workspace, from its log) gives each item's location; the bodies of such
 * items are kept until `retainBytes` of them are held and dropped after that, so an open history holds
 * an index of its log, not the log. The first ones are kept rather than the newest: a body that is
 * kept stays kept, so a long load makes no garbage that lives long enough to grow the heap.
 */
import type { Item } from '../transcript/items.js';
import type { Checkpoint, LineLocation, LogEntry, LogProblem } from '../transcript/log.js';

export interface ItemNode {
  id: string;
  parent: string | null;
  /** The item, or `undefined` when it was dropped from memory (read back through `at`). */
  body: Item | undefined;
  /** Where the backend can read the item again; `undefined`: the body is always kept. */
  at: LineLocation | undefined;
}

/** Reads back the item `id` stored at `at` (the backend checks the bytes are the ones indexed). */
export type ItemReader = (at: LineLocation, id: string) => Item;

/**
 * Reads back several dropped items at once, in the order given (a backend across a network reads a
 * path in a few round trips instead of one per item).
 */
export type ItemBatchReader = (nodes: readonly ItemNode[]) => Item[];

/** Most line bytes read back per batch (and items per batch): what a path read holds besides the path. */
const READ_BATCH_BYTES = 8 << 20;
const READ_BATCH_ITEMS = 1000;

/** Default bytes of item lines kept in memory by a history whose backend can read items back: 16 MiB. */
export const DEFAULT_RETAIN_BYTES = 16 << 20;

export interface TreeState {
  nodes: Map<string, ItemNode>;
  /** Nodes in log order (when they happened). */
  order: ItemNode[];
  tip: string | null;
  /** Latest checkpoint per label. */
  checkpoints: Map<string, Checkpoint>;
  /** Last committed turn number. */
  turn: number;
  /** How dropped bodies are read back; without one, every body is kept. */
  read: ItemReader | undefined;
  /** How several dropped bodies are read back at once (else one by one through `read`). */
  readMany?: ItemBatchReader | undefined;
  /** Line bytes of the droppable bodies kept, and the most that may be kept. */
  retained: number;
  retainBytes: number;
}

export function emptyState(
  read?: ItemReader,
  retainBytes = DEFAULT_RETAIN_BYTES,
  readMany?: ItemBatchReader,
): TreeState {
  return {
    nodes: new Map(),
    order: [],
    tip: null,
    checkpoints: new Map(),
    turn: 0,
    read,
    readMany,
    retained: 0,
    retainBytes,
  };
}

/** The item of `node`, read back from the backend when its body was dropped. */
export function bodyOf(state: TreeState, node: ItemNode): Item {
  if (node.body) return node.body;
  // Not cached again: a walk over a long path would otherwise pull the whole log back into memory.
  return state.read!(node.at!, node.id);
}

/** The items of `nodes`, in order; dropped bodies are read back in batches when the backend can. */
export function bodiesOf(state: TreeState, nodes: readonly ItemNode[]): Item[] {
  const readMany = state.readMany;
  if (!readMany) return nodes.map((n) => bodyOf(state, n));
  const out: Item[] = new Array<Item>(nodes.length);
  let batch: number[] = [];
  let bytes = 0;
  const flush = (): void => {
    const got = readMany(batch.map((i) => nodes[i]!));
    batch.forEach((i, k) => (out[i] = got[k]!));
    batch = [];
    bytes = 0;
  };
  nodes.forEach((n, i) => {
    if (n.body) {
      out[i] = n.body;
      return;
    }
    const length = n.at!.length;
    if (batch.length > 0 && (bytes + length > READ_BATCH_BYTES || batch.length >= READ_BATCH_ITEMS)) flush();
    batch.push(i);
    bytes += length;
  });
  if (batch.length > 0) flush();
  return out;
}

/**
 * Applies one committed entry; `at` is where its line is, when the backend can read it back. Entries
 * that refer to unknown items are reported and skipped (a tip or a checkpoint) or kept and reported (an
 * item with a missing parent: it exists, it is just unreachable from a root — reported, never silently
 * dropped). `indexOnly`: the entry's item holds only its id and parent (the backend loaded its index,
 * not its body), so the body is read back whenever it is asked for.
 */
export function applyEntry(
  state: TreeState,
  entry: LogEntry,
  line: number,
  problems: LogProblem[],
  at?: LineLocation,
  indexOnly = false,
): void {
  switch (entry.t) {
    case 'item': {
      const item = entry.item;
      if (state.nodes.has(item.id)) {
        problems.push({
          kind: 'reference',
          line,
          message: `line ${line}: item id ${item.id} appears twice; the later one was ignored`,
        });
        return;
      }
      const parentNode = item.parent === null ? undefined : state.nodes.get(item.parent);
      if (item.parent !== null && !parentNode) {
        problems.push({
          kind: 'reference',
          line,
          message: `line ${line}: item ${item.id} names parent ${item.parent}, which is not earlier in the log (broken parent chain)`,
        });
      }
      const droppable = at !== undefined && state.read !== undefined;
      if (indexOnly && !droppable)
        throw new Error(
          `internal: item ${item.id} was loaded without its body by a backend that cannot read it`,
        );
      const keep = !indexOnly && (!droppable || state.retained + at.length <= state.retainBytes);
      if (droppable && keep) state.retained += at.length;
      // The parent's id string is shared, not a second copy per child.
      const node: ItemNode = {
        id: item.id,
        parent: parentNode ? parentNode.id : item.parent,
        body: keep ? item : undefined,
        at: droppable ? at : undefined,
      };
      state.nodes.set(item.id, node);
      state.order.push(node);
      state.tip = item.id;
      return;
    }
    case 'tip':
      if (entry.tip !== null && !state.nodes.has(entry.tip)) {
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
      if (c.at !== null && !state.nodes.has(c.at)) {
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

/** Nodes root → `tip`, following parents. Stops at a missing parent (already reported on load). */
export function nodePath(state: TreeState, tip: string | null): ItemNode[] {
  const out: ItemNode[] = [];
  const seen = new Set<string>();
  let id = tip;
  while (id !== null) {
    const node = state.nodes.get(id);
    if (!node || seen.has(id)) break;
    seen.add(id);
    out.push(node);
    id = node.parent;
  }
  return out.reverse();
}

/** Items root → `tip`, following parents. Stops at a missing parent (already reported on load). */
export function pathTo(state: TreeState, tip: string | null): Item[] {
  return bodiesOf(state, nodePath(state, tip));
}

/** Children of `id` (`null`: the roots), in log order. */
export function childrenOf(state: TreeState, id: string | null): Item[] {
  return bodiesOf(
    state,
    state.order.filter((n) => n.parent === id),
  );
}
