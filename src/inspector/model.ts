/**
 * What the inspector reads out of a workspace, as plain JSON: conversation rows, the session tree laid
 * out for a list (paged), paths, and the screen/wire/token views of a path. Pure functions of a history
 * and its items; the HTTP handler (`api.ts`) does the I/O.
 */
import { itemText, type Item } from '../transcript/items.js';
import type { Checkpoint } from '../transcript/log.js';

/** One row of the tree as the navigator draws it. */
export interface TreeRow {
  id: string;
  parent: string | null;
  /** Indentation: a chain stays in its lane, a side branch opens the next one. */
  lane: number;
  kind: Item['kind'];
  author: Item['author'];
  turn: number;
  time: string;
  /** First characters of the item's text, whitespace folded. */
  preview: string;
  /** Children in the tree (more than one: a branch point). */
  children: number;
  tip: boolean;
  /** On the active path (root → tip). */
  active: boolean;
  /** Labels of checkpoints set at this item. */
  checkpoints: string[];
  /** Conversations forked from this item. */
  forks: string[];
}

export const PREVIEW_CHARS = 120;

/** The first `n` characters of an item's text, whitespace folded. */
export function preview(item: Item, n = PREVIEW_CHARS): string {
  const text =
    item.kind === 'compaction'
      ? `${item.rung} ${item.range.from} … ${item.range.to}`
      : item.kind === 'image'
        ? `[image ${item.mediaType} ${item.width ?? '?'}×${item.height ?? '?'}]${item.text ? ' ' + item.text : ''}`
        : itemText(item);
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length > n ? folded.slice(0, n - 1) + '…' : folded;
}

/**
 * Every item of a history as rows in drawing order: depth first, the side branches of a branch point
 * before the child that carries on toward the tip (so the active path reads as one column at lane 0).
 * Iterative: a 100k-item chain must not overflow the stack.
 */
export function treeRows(
  items: readonly Item[],
  tip: string | null,
  active: readonly Item[],
  checkpoints: readonly Checkpoint[],
  forks: ReadonlyMap<string, string[]>,
): TreeRow[] {
  const ids = new Set(items.map((i) => i.id));
  const children = new Map<string | null, Item[]>();
  for (const item of items) {
    const parent = item.parent !== null && ids.has(item.parent) ? item.parent : null;
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(item);
  }
  const onActive = new Set(active.map((i) => i.id));
  const cps = new Map<string, string[]>();
  for (const c of checkpoints) if (c.at !== null) cps.set(c.at, [...(cps.get(c.at) ?? []), c.label]);
  // Does the subtree of an item hold the tip? Only the active path's items do.
  const ordered = (list: Item[]): Item[] => {
    const main = list.find((i) => onActive.has(i.id)) ?? list[list.length - 1]!;
    return [...list.filter((i) => i !== main), main];
  };
  const rows: TreeRow[] = [];
  const stack: { item: Item; lane: number }[] = [];
  const push = (list: Item[] | undefined, lane: number): void => {
    if (!list || list.length === 0) return;
    const o = ordered(list);
    // The stack pops last-in first: push the main child first so the side branches come out before it.
    stack.push({ item: o[o.length - 1]!, lane });
    for (let k = o.length - 2; k >= 0; k--) stack.push({ item: o[k]!, lane: lane + 1 });
  };
  push(children.get(null), 0);
  while (stack.length > 0) {
    const { item, lane } = stack.pop()!;
    const kids = children.get(item.id);
    rows.push({
      id: item.id,
      parent: item.parent,
      lane,
      kind: item.kind,
      author: item.author,
      turn: item.turn,
      time: item.time,
      preview: preview(item),
      children: kids?.length ?? 0,
      tip: item.id === tip,
      active: onActive.has(item.id),
      checkpoints: cps.get(item.id) ?? [],
      forks: forks.get(item.id) ?? [],
    });
    push(kids, lane);
  }
  return rows;
}

/** A path item as a list row (full item at `…/item/ID`). */
export interface PathRow {
  id: string;
  kind: Item['kind'];
  author: Item['author'];
  turn: number;
  time: string;
  preview: string;
}

export function pathRow(item: Item): PathRow {
  return {
    id: item.id,
    kind: item.kind,
    author: item.author,
    turn: item.turn,
    time: item.time,
    preview: preview(item),
  };
}
