/**
 * The session tree as ASCII text: one line per item, a chain stays in its column, a fork in the tree
 * opens `|-` / `` `- `` branches. The tip is marked `<- tip`, checkpoints `[checkpoint NAME]`. Pure.
 */
import { itemText, type Item } from '../transcript/items.js';
import type { Checkpoint } from '../transcript/log.js';

export interface TreeRenderOptions {
  /** Characters of item text shown per line (default 60). */
  width?: number;
}

function label(item: Item, width: number): string {
  const text = itemText(item).replace(/\s+/g, ' ').trim();
  const short = text.length > width ? text.slice(0, width - 1) + '…' : text;
  return `${item.id} t${item.turn} ${item.author}/${item.kind}: ${short}`;
}

export function renderTree(
  items: readonly Item[],
  tip: string | null,
  checkpoints: readonly Checkpoint[],
  options: TreeRenderOptions = {},
): string {
  const width = options.width ?? 60;
  const children = new Map<string | null, Item[]>();
  const ids = new Set(items.map((i) => i.id));
  for (const item of items) {
    // An item whose parent is missing is shown as a root rather than hidden.
    const parent = item.parent !== null && ids.has(item.parent) ? item.parent : null;
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(item);
  }
  const marks = new Map<string | null, string[]>();
  for (const c of checkpoints) {
    const list = marks.get(c.at) ?? [];
    list.push(c.label);
    marks.set(c.at, list);
  }
  const suffix = (id: string | null): string => {
    let s = '';
    if (id === tip) s += '  <- tip';
    for (const l of marks.get(id) ?? []) s += `  [checkpoint ${l}]`;
    return s;
  };
  const out: string[] = [];
  const rootMarks = suffix(null);
  if (rootMarks) out.push(`(start)${rootMarks}`);
  // Explicit stack instead of recursion: a chain of 100k items must not overflow the call stack.
  const stack: { item: Item; lead: string; rest: string }[] = [];
  const pushChildren = (list: readonly Item[], prefix: string, branching: boolean): void => {
    for (let i = list.length - 1; i >= 0; i--) {
      const last = i === list.length - 1;
      stack.push(
        branching
          ? { item: list[i]!, lead: prefix + (last ? '`- ' : '|- '), rest: prefix + (last ? '   ' : '|  ') }
          : { item: list[i]!, lead: prefix, rest: prefix },
      );
    }
  };
  const roots = children.get(null) ?? [];
  pushChildren(roots, '', roots.length > 1);
  while (stack.length > 0) {
    const { item, lead, rest } = stack.pop()!;
    out.push(lead + label(item, width) + suffix(item.id));
    const kids = children.get(item.id) ?? [];
    pushChildren(kids, rest, kids.length > 1);
  }
  return out.join('\n') + (out.length > 0 ? '\n' : '');
}
