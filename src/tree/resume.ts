/**
 * Resume: the newest part of a path, cut where no tool call is separated from its result. Pure.
 */
import { itemText, type Item } from '../transcript/items.js';
import type { Checkpoint } from '../transcript/log.js';

export interface ResumeOptions {
  /** Keep at most this many items. */
  maxItems?: number;
  /** Keep at most this many tokens, as counted by `estimate`. */
  maxTokens?: number;
  /** Token count of one item; defaults to `roughTokens`. */
  estimate?: (item: Item) => number;
}

export interface DroppedCheckpoint {
  checkpoint: Checkpoint;
  reason: string;
}

export interface ResumeResult {
  /** The kept suffix of the path. */
  items: Item[];
  /** How many older path items were left out. */
  omitted: number;
  /** Checkpoints whose position survived the cut. */
  checkpoints: Checkpoint[];
  /** Checkpoints whose position did not survive: dropped, never moved to a nearby position. */
  dropped: DroppedCheckpoint[];
}

/** A deliberately simple estimate (4 characters a token, a flat 1600 per image) for budgets without a profile. */
export function roughTokens(item: Item): number {
  let images = 0;
  if (item.kind === 'image') images = 1;
  if (item.kind === 'tool_result') images = item.content.filter((p) => p.type === 'image').length;
  return Math.ceil(itemText(item).length / 4) + images * 1600;
}

/**
 * Cut positions `s` (keep `path[s..]`) that would split a call from its result, as a boolean per `s`.
 * A pair with the call at `c` and the result at `r` blocks every `s` in `c+1..r`.
 */
export function blockedCuts(path: readonly Item[]): boolean[] {
  const diff = new Int32Array(path.length + 2);
  const openCalls = new Map<string, number>();
  path.forEach((item, i) => {
    if (item.kind === 'tool_call') openCalls.set(item.callId, i);
    else if (item.kind === 'tool_result') {
      const c = openCalls.get(item.callId);
      if (c !== undefined) {
        diff[c + 1]! += 1;
        diff[i + 1]! -= 1;
        openCalls.delete(item.callId);
      }
    }
  });
  const out: boolean[] = [];
  let run = 0;
  for (let s = 0; s <= path.length; s++) {
    run += diff[s]!;
    out.push(run > 0);
  }
  return out;
}

/** Cuts `path` for a resume and sorts `checkpoints` into kept and dropped. */
export function resumeCut(
  path: readonly Item[],
  checkpoints: readonly Checkpoint[],
  options: ResumeOptions,
): ResumeResult {
  const { maxItems, maxTokens } = options;
  if (maxItems === undefined && maxTokens === undefined)
    throw new TypeError('resume: give maxItems or maxTokens');
  for (const [name, v] of [
    ['maxItems', maxItems],
    ['maxTokens', maxTokens],
  ] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 0))
      throw new RangeError(`resume: ${name} expected a non-negative integer, found ${String(v)}`);
  }
  const n = path.length;
  let start = maxItems === undefined ? 0 : Math.max(0, n - maxItems);
  if (maxTokens !== undefined) {
    const estimate = options.estimate ?? roughTokens;
    let total = 0;
    let s = n;
    while (s > 0) {
      const t = estimate(path[s - 1]!);
      if (total + t > maxTokens) break;
      total += t;
      s--;
    }
    start = Math.max(start, s);
  }
  // Moving the cut forward only shrinks the kept part, so the budget still holds.
  const blocked = blockedCuts(path);
  while (blocked[start]) start++;
  const items = path.slice(start);
  const kept = new Set(items.map((i) => i.id));
  const onPath = new Set(path.map((i) => i.id));
  const keptCps: Checkpoint[] = [];
  const dropped: DroppedCheckpoint[] = [];
  for (const cp of checkpoints) {
    if (cp.at === null ? start === 0 : kept.has(cp.at)) keptCps.push(cp);
    else if (cp.at !== null && !onPath.has(cp.at))
      dropped.push({ checkpoint: cp, reason: `item ${cp.at} is not on the active path` });
    else
      dropped.push({
        checkpoint: cp,
        reason: cp.at === null ? 'the start of the history was cut' : `item ${cp.at} was cut`,
      });
  }
  return { items, omitted: start, checkpoints: keptCps, dropped };
}
