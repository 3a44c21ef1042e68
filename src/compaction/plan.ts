/**
 * The snapshot cut: head verbatim, middle imaged, tail verbatim.
 *
 * - Head: everything up to and including the first person message (the task and its constraints).
 * - Tail: the most recent items up to `tailBudget` tokens (where the work is), at least the last unit,
 *   and never less than the latest person message and everything after it (the current turn: what
 *   the person just asked is never imaged or summarized). When the latest person message is the task
 *   in the head (one long autonomous turn), the budget alone sets the tail.
 * - Middle: imaged, except that every person message (the task's corrections, PEERS.md #2) and every
 *   pinned item stays verbatim text in its place while `personBudget` allows, splitting the imaged
 *   middle into runs around it.
 * Every boundary is a valid cut (see cuts.ts): nothing between a call and its result, no tail that
 * starts at an orphaned result.
 */
import type { Item } from '../transcript/items.js';
import { cutAtOrAfter, cutAtOrBefore, validCuts } from './cuts.js';

export interface PlanOptions {
  /** Tokens of recent items kept verbatim at the end. */
  tailBudget: number;
  /** Tokens of person messages (and pinned items) kept verbatim in the middle, newest first. */
  personBudget: number;
  /** A single person message longer than this is imaged with its run. Default: personBudget. */
  personMaxItem?: number;
  /**
   * Most verbatim islands in the middle (newest kept). Each island splits the imaged middle, and every
   * run costs at least one image: with a per-request image limit, too many islands would leave runs
   * with no image to go on, so the oldest islands are imaged with their runs instead.
   */
  maxIslands?: number;
  /** `validCuts(items)`, when the caller has it. */
  cuts?: Uint8Array;
  /**
   * Whether the tail always reaches back to the latest person message (default true). `false` lets
   * the budget alone set the tail (callers that keep that message some other way).
   */
  tailFromLatestPerson?: boolean;
}

/** A stretch `[from, to)` of the item list, kept as text or imaged. */
export interface Segment {
  from: number;
  to: number;
  verbatim: boolean;
}

export interface SnapshotPlan {
  /** `[0, headEnd)` is the verbatim head. */
  headEnd: number;
  /** `[tailStart, length)` is the verbatim tail. */
  tailStart: number;
  /** The middle `[headEnd, tailStart)` split into verbatim islands and imaged runs, in order. */
  middle: Segment[];
  /** Person messages in the middle kept verbatim / imaged for lack of budget. */
  personKept: number;
  personImaged: number;
}

function isPerson(it: Item): boolean {
  return it.kind === 'message' && it.author === 'person';
}

/** Plans the snapshot cut of `items` (`tokens[i]` estimates `items[i]`). Pure. */
export function planSnapshot(
  items: readonly Item[],
  tokens: readonly number[],
  options: PlanOptions,
): SnapshotPlan {
  const n = items.length;
  const cuts = options.cuts ?? validCuts(items);
  let firstPerson = items.findIndex(isPerson);
  if (firstPerson < 0) firstPerson = -1;
  const headEnd = cutAtOrAfter(cuts, firstPerson + 1);

  // Tail: walk back while the budget lasts, then move forward to a valid cut.
  let start = n;
  let used = 0;
  while (start > headEnd && used + tokens[start - 1]! <= options.tailBudget) {
    used += tokens[start - 1]!;
    start--;
  }
  let tailStart = cutAtOrAfter(cuts, start);
  if (tailStart >= n && n > headEnd) tailStart = cutAtOrBefore(cuts, n - 1);
  if (tailStart < headEnd) tailStart = headEnd;
  if (options.tailFromLatestPerson !== false) {
    let latest = n - 1;
    while (latest >= headEnd && !isPerson(items[latest]!)) latest--;
    if (latest >= headEnd) tailStart = Math.max(headEnd, Math.min(tailStart, cutAtOrBefore(cuts, latest)));
  }

  // Verbatim islands in the middle: person messages and pinned items, newest first, within budget.
  const personMax = options.personMaxItem ?? options.personBudget;
  const keep = new Uint8Array(n);
  let personUsed = 0;
  let personKept = 0;
  let personImaged = 0;
  const maxIslands = options.maxIslands ?? Infinity;
  let islands = 0;
  let lastKept = -2;
  for (let i = tailStart - 1; i >= headEnd; i--) {
    const it = items[i]!;
    if (!isPerson(it) && !it.pinned) continue;
    const t = tokens[i]!;
    // Adjacent kept items form one island; a new island only while the limit allows.
    const newIsland = lastKept !== i + 1;
    if (t <= personMax && personUsed + t <= options.personBudget && (!newIsland || islands < maxIslands)) {
      if (newIsland) islands++;
      lastKept = i;
      keep[i] = 1;
      personUsed += t;
      if (isPerson(it)) personKept++;
    } else if (isPerson(it)) personImaged++;
  }

  const middle: Segment[] = [];
  let i = headEnd;
  while (i < tailStart) {
    if (keep[i]) {
      // The island grows to the enclosing valid cuts so a call never leaves its result.
      const from = Math.max(headEnd, cutAtOrBefore(cuts, i));
      let to = Math.min(tailStart, cutAtOrAfter(cuts, i + 1));
      while (to < tailStart && keep[to]) to = Math.min(tailStart, cutAtOrAfter(cuts, to + 1));
      push(middle, from, to, true);
      i = to;
      continue;
    }
    let j = i;
    while (j < tailStart && !keep[j]) j++;
    // An imaged run ends at a valid cut; the island that follows starts there.
    const end = j < tailStart ? Math.max(i, cutAtOrBefore(cuts, j)) : tailStart;
    if (end > i) push(middle, i, end, false);
    i = end > i ? end : j;
  }
  return { headEnd, tailStart, middle, personKept, personImaged };
}

function push(segments: Segment[], from: number, to: number, verbatim: boolean): void {
  if (to <= from) return;
  const last = segments[segments.length - 1];
  if (last && last.to > from) {
    // An island that grew backwards over part of the previous run takes that part over.
    last.to = from;
    if (last.to <= last.from) segments.pop();
  }
  const prev = segments[segments.length - 1];
  if (prev && prev.verbatim === verbatim && prev.to === from) prev.to = to;
  else segments.push({ from, to, verbatim });
}
