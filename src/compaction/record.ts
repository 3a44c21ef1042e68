/**
 * Compaction in the record: each applied rung appends one compaction item (range, rung, parameters,
 * summary text), all of one compaction in one commit (a "group"). A request is rebuilt from the record
 * by replaying the last group over the items before it: elided and shed ids, imaged runs re-rendered
 * from source text, summaries from their stored text. No estimate and no model call goes into a
 * replay, so a resumed run sends the same bytes (and hits the same prompt cache).
 */
import type { CompactionItem, Item, NewItem, SummaryItem } from '../transcript/items.js';
import { elidedResult, shedImageItem, shedResultImages } from './placeholders.js';
import { applySnapshot, pageVariant, type PageSpec, type SnapshotRenderer } from './snapshot.js';
import type { ToolInputFormat, ToolOutputFormat } from './text.js';
import { variantId } from '../render/index.js';

/** A compaction item as the ladder hands it to the history to append. */
export type CompactionRecord = Extract<NewItem, { kind: 'compaction' }>;

export interface IdRange {
  from: string;
  to: string;
}

/** Indices `[start, end]` of the last group of compaction items in `path`, if any. */
export function lastGroup(path: readonly Item[]): { start: number; end: number } | undefined {
  let end = path.length - 1;
  while (end >= 0 && path[end]!.kind !== 'compaction') end--;
  if (end < 0) return undefined;
  let start = end;
  while (start > 0 && path[start - 1]!.kind === 'compaction') start--;
  return { start, end };
}

function idList(params: Record<string, unknown>, key: string, item: CompactionItem): string[] {
  const v = params[key];
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new Error(`compaction item ${item.id} (${item.rung}): params.${key} must be a list of item ids`);
  }
  return v as string[];
}

function rangeList(params: Record<string, unknown>, key: string, item: CompactionItem): IdRange[] {
  const v = params[key];
  if (v === undefined) return [];
  const ok =
    Array.isArray(v) &&
    v.every((r) => r && typeof (r as IdRange).from === 'string' && typeof (r as IdRange).to === 'string');
  if (!ok)
    throw new Error(
      `compaction item ${item.id} (${item.rung}): params.${key} must be a list of {from, to} ids`,
    );
  return v as IdRange[];
}

/** Ids an earlier group elided and shed: the ladder keeps them so (cache stability). */
export function stickyIds(group: readonly CompactionItem[]): { elided: Set<string>; shed: Set<string> } {
  const elided = new Set<string>();
  const shed = new Set<string>();
  for (const g of group) {
    if (g.rung === 'elide') for (const id of idList(g.params, 'ids', g)) elided.add(id);
    if (g.rung === 'shed') for (const id of idList(g.params, 'ids', g)) shed.add(id);
  }
  return { elided, shed };
}

/** The item that stands for a stretch left out of the request (no summarizer, over the image limits). */
export function omissionMarker(run: readonly Item[]): SummaryItem {
  const first = run[0]!;
  const last = run[run.length - 1]!;
  return {
    kind: 'summary',
    author: 'machinery',
    id: `${first.id}~omitted`,
    parent: first.parent,
    turn: first.turn,
    time: first.time,
    text: `[${run.length} items (${first.id}..${last.id}, turns ${first.turn}-${last.turn}) are left out of this request: they did not fit and no summarizer was configured. The record keeps them.]`,
    covers: { from: first.id, to: last.id },
  };
}

/** The item that carries a summary of `ranges` (placed where the first range starts). */
export function summaryItem(first: Item, lastId: string, text: string): SummaryItem {
  return {
    kind: 'summary',
    author: 'machinery',
    id: `${first.id}~summary`,
    parent: first.parent,
    turn: first.turn,
    time: first.time,
    text,
    covers: { from: first.id, to: lastId },
  };
}

/**
 * Replaces each id range of `items` by `make(run)`; with `single`, only the first range gets the
 * replacement and later ranges are dropped (one summary stands for all of them).
 */
export function replaceRanges(
  items: readonly Item[],
  ranges: readonly IdRange[],
  make: (run: Item[], index: number) => Item[],
): Item[] {
  if (ranges.length === 0) return items.slice();
  const index = new Map(items.map((it, i) => [it.id, i]));
  const spans = ranges.map((r) => {
    const from = index.get(r.from);
    const to = index.get(r.to);
    if (from === undefined || to === undefined || to < from) {
      throw new Error(`compaction: range ${r.from}..${r.to} is not in the path`);
    }
    return { from, to: to + 1 };
  });
  spans.sort((a, b) => a.from - b.from);
  const out: Item[] = [];
  let at = 0;
  spans.forEach((s, k) => {
    for (let i = at; i < s.from; i++) out.push(items[i]!);
    out.push(...make(items.slice(s.from, s.to), k));
    at = s.to;
  });
  for (let i = at; i < items.length; i++) out.push(items[i]!);
  return out;
}

/** Applies one group's elide and shed ids to `items` (pure). */
export function applyFree(
  items: readonly Item[],
  elided: ReadonlySet<string>,
  shed: ReadonlySet<string>,
): Item[] {
  return items.map((it) => {
    if (elided.has(it.id) && it.kind === 'tool_result') return elidedResult(it);
    if (shed.has(it.id)) {
      if (it.kind === 'image') return shedImageItem(it);
      if (it.kind === 'tool_result') return shedResultImages(it);
    }
    return it;
  });
}

function pageSpec(g: CompactionItem): PageSpec {
  const p = g.params['page'] as PageSpec | undefined;
  if (!p || typeof p.width !== 'number' || typeof p.height !== 'number' || typeof p.cell !== 'string') {
    throw new Error(
      `compaction item ${g.id} (snapshot): params.page must give width, height, cell, scale, tokens`,
    );
  }
  // The variant fields must agree with each other, or the replay would draw other pages than the pass.
  let id: string;
  try {
    id = variantId(pageVariant(p));
  } catch (err) {
    throw new Error(`compaction item ${g.id} (snapshot): params.page: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (p.variant !== undefined && p.variant !== id) {
    throw new Error(
      `compaction item ${g.id} (snapshot): params.page.variant is '${String(p.variant)}' but its cell, scale, spacing and layout make '${id}'`,
    );
  }
  return p;
}

/** The tool-input format of a snapshot record's text: absent = written before the reader layout. */
function textFormat(g: CompactionItem): ToolInputFormat {
  const t = g.params['text'];
  if (t === undefined) return 'json';
  if (t !== 'fields' && t !== 'json') {
    throw new Error(
      `compaction item ${g.id} (snapshot): params.text must be 'fields' or 'json', found ${JSON.stringify(t)}`,
    );
  }
  return t;
}

/** The tool-output format of a snapshot record's text: absent = written before outputs were unwrapped. */
function outputFormat(g: CompactionItem): ToolOutputFormat {
  const o = g.params['output'];
  if (o === undefined) return 'verbatim';
  if (o !== 'readable' && o !== 'verbatim') {
    throw new Error(
      `compaction item ${g.id} (snapshot): params.output must be 'readable' or 'verbatim', found ${JSON.stringify(o)}`,
    );
  }
  return o;
}

/**
 * The request a path stands for: its last compaction group replayed over the items before it, the
 * items after it as they are. Compaction items themselves never reach the request.
 */
export async function rebuildRequest(
  path: readonly Item[],
  renderer?: SnapshotRenderer,
): Promise<{ items: Item[]; group: CompactionItem[] }> {
  const at = lastGroup(path);
  if (!at) return { items: path.filter((i) => i.kind !== 'compaction'), group: [] };
  const group = path.slice(at.start, at.end + 1) as CompactionItem[];
  let items: Item[] = path.slice(0, at.start).filter((i) => i.kind !== 'compaction');
  const after = path.slice(at.end + 1).filter((i) => i.kind !== 'compaction');
  const { elided, shed } = stickyIds(group);
  items = applyFree(items, elided, shed);
  const snap = group.find((g) => g.rung === 'snapshot');
  const summary = group.find((g) => g.rung === 'summarize');
  if (snap) {
    if (!renderer) throw new Error(`compaction item ${snap.id} needs the renderer to rebuild its pages`);
    items = (
      await applySnapshot(
        items,
        {
          runs: rangeList(snap.params, 'runs', snap),
          page: pageSpec(snap),
          text: textFormat(snap),
          output: outputFormat(snap),
        },
        renderer,
      )
    ).items;
  }
  if (summary) {
    const ranges = rangeList(summary.params, 'ranges', summary);
    const text = summary.summary ?? '';
    const last = ranges[ranges.length - 1];
    items = replaceRanges(items, ranges, (run, k) => (k === 0 ? [summaryItem(run[0]!, last!.to, text)] : []));
  } else if (snap) {
    items = replaceRanges(items, rangeList(snap.params, 'overflow', snap), (run) => [omissionMarker(run)]);
  }
  return { items: [...items, ...after], group };
}
