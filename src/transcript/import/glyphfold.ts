/**
 * glyphfold's own JSONL export (`exportJsonl`). The lines already are items; importing gives them
 * fresh deterministic ids along the file order, keeps the tree (parents naming earlier lines), turns,
 * times and callIds, and remaps the item ids that compaction and summary items refer to.
 */
import type { Item } from '../items.js';
import { checkItem } from '../jsonl.js';
import { validateItem } from '../validate.js';
import { PathBuilder, isRecord, parseLines, type ImportOptions, type ImportResult } from './build.js';

export function looksGlyphfold(values: readonly unknown[]): boolean {
  return values.some(
    (v) =>
      isRecord(v) &&
      typeof v.id === 'string' &&
      'parent' in v &&
      typeof v.kind === 'string' &&
      typeof v.author === 'string',
  );
}

export function importGlyphfold(text: string, options: ImportOptions = {}): ImportResult {
  const b = new PathBuilder('glyphfold');
  const source: Item[] = [];
  for (const { line, value } of parseLines(text, 'glyphfold', b)) {
    // An item that does not validate (an unknown content part type, a missing field) is an error
    // naming its line and field: leaving it out would drop a piece of the history unseen.
    const item = checkItem(value, `glyphfold: line ${line}`);
    try {
      validateItem(item);
    } catch (error) {
      throw new Error(`glyphfold: line ${line}: ${(error as Error).message}`, { cause: error });
    }
    source.push(item);
  }
  if (source.length === 0) throw new Error('glyphfold: no valid item line was found');
  // Ids and default times come from the shared builder; parents that name an earlier line keep the
  // tree (an exported tree stays a tree), the recorded turn numbers are kept.
  const index = new Map<string, number>();
  source.forEach((item, i) => {
    const { id: _id, parent, turn: _turn, time: _time, ...rest } = item;
    const at = parent === null ? null : index.get(parent);
    if (at === undefined && i > 0) {
      b.warn(
        `line item ${item.id}: parent ${String(parent)} is not an earlier line; it continues from the previous line`,
      );
    } else if (at !== undefined) b.attach(at);
    b.push(rest as never, item.time);
    if (!index.has(item.id)) index.set(item.id, i);
  });
  const built = b.finish('glyphfold', options);
  const ids = new Map(source.map((item, i) => [item.id, built.tree[i]!.id]));
  const remap = (id: string): string => ids.get(id) ?? id;
  const tree = built.tree.map((item, i) => {
    const out = { ...item, turn: source[i]!.turn } as Item;
    if (out.kind === 'summary' && out.covers)
      out.covers = { from: remap(out.covers.from), to: remap(out.covers.to) };
    if (out.kind === 'compaction') out.range = { from: remap(out.range.from), to: remap(out.range.to) };
    if (out.kind === 'digest' && out.abandonedTip) out.abandonedTip = remap(out.abandonedTip);
    return out;
  });
  const byId = new Map(tree.map((item) => [item.id, item]));
  built.items = built.items.map((item) => byId.get(item.id)!);
  built.tree = tree;
  return built;
}
