/**
 * Rung 1, elision: old tool results nothing later refers to become a one-line placeholder.
 *
 * "Uneventful" means: not an error, not in the last K turns, not pinned, carries no image (shedding
 * owns those), and no later item mentions its call id or a file it produced or takes it as input.
 * Clearing anything rewrites the request from the first cleared item on, which costs a prompt-cache
 * miss, so the rung clears in one batch worth that miss (`minClear`) or not at all (PEERS.md #5).
 */
import type { Item, ToolResultItem } from '../transcript/items.js';
import { elidedResult, isElided } from './placeholders.js';
import { referencedResults } from './refs.js';
import type { Estimator, RungResult } from './types.js';

export interface ElideOptions {
  /** Results in the last `keepTurns` turns are never elided. Default 3. */
  keepTurns?: number;
  /** Clear at least this many tokens in one batch, or nothing. Default 20,000 (opencode's figure). */
  minClear?: number;
  /** A result smaller than this is not worth a placeholder. Default 100 tokens. */
  minItemTokens?: number;
  /** Ids an earlier compaction elided: they stay elided whatever the batch size (cache stability). */
  sticky?: ReadonlySet<string>;
}

export const ELIDE_DEFAULTS = { keepTurns: 3, minClear: 20_000, minItemTokens: 100 } as const;

/**
 * Elides uneventful old tool results of `items`. `tokens[i]` is the estimate of `items[i]`; the
 * returned `tokens` array matches the returned items. Pure: the input arrays are not modified.
 */
export function elide(
  items: readonly Item[],
  tokens: readonly number[],
  estimate: Estimator,
  options: ElideOptions = {},
): RungResult & { tokens: number[] } {
  const keepTurns = options.keepTurns ?? ELIDE_DEFAULTS.keepTurns;
  const minClear = options.minClear ?? ELIDE_DEFAULTS.minClear;
  const minItemTokens = options.minItemTokens ?? ELIDE_DEFAULTS.minItemTokens;
  const sticky = options.sticky ?? new Set<string>();
  const before = sum(tokens);
  let lastTurn = 0;
  for (const it of items) if (it.turn > lastTurn) lastTurn = it.turn;
  const newestElidable = lastTurn - keepTurns;

  const candidates = new Set<number>();
  const forced: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (it.kind !== 'tool_result' || isElided(it)) continue;
    if (sticky.has(it.id)) {
      forced.push(i);
      continue;
    }
    if (it.isError || it.pinned || it.turn > newestElidable) continue;
    if (it.content.some((p) => p.type === 'image')) continue;
    if (tokens[i]! < minItemTokens) continue;
    candidates.add(i);
  }
  const referenced = candidates.size ? referencedResults(items, candidates) : new Set<number>();
  const chosen: number[] = [];
  let clearable = 0;
  for (const i of candidates) {
    if (referenced.has(i)) continue;
    chosen.push(i);
    clearable += tokens[i]!;
  }
  const batch = clearable >= minClear ? chosen : [];
  const all = [...forced, ...batch].sort((a, b) => a - b);

  const out = items.slice();
  const outTokens = tokens.slice();
  const ids: string[] = [];
  for (const i of all) {
    const it = items[i] as ToolResultItem;
    const placeholder = elidedResult(it);
    out[i] = placeholder;
    outTokens[i] = estimate(placeholder);
    ids.push(it.id);
  }
  const after = sum(outTokens);
  let reason: string;
  if (all.length === 0) {
    reason =
      candidates.size === 0
        ? 'no uneventful old tool results'
        : `only ${clearable} tokens clearable (${chosen.length} results, ${referenced.size} still referred to); batch minimum is ${minClear}`;
  } else {
    reason = `elided ${ids.length} tool results (${forced.length} kept from an earlier compaction, ${referenced.size} left because later items refer to them)`;
  }
  return {
    items: out,
    tokens: outTokens,
    report: {
      rung: 'elide',
      applied: all.length > 0,
      tokensBefore: before,
      tokensAfter: after,
      items: ids,
      reason,
      details: { candidates: candidates.size, referenced: referenced.size, minClear },
    },
  };
}

export function sum(a: readonly number[]): number {
  let s = 0;
  for (const x of a) s += x;
  return s;
}
