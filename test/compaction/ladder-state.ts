/** Ladder options and states by hand, for tests that drive one rung alone at its limits. */
import { computeBudget } from '../../src/compaction/budget.js';
import type { LadderOptions } from '../../src/compaction/ladder.js';
import { RENDERER } from '../../src/compaction/policy.js';
import type { IdRange } from '../../src/compaction/record.js';
import type { LadderState } from '../../src/compaction/rung.js';
import type { PageSpec } from '../../src/compaction/snapshot.js';
import type { CompactionProfile } from '../../src/compaction/types.js';
import type { Item } from '../../src/transcript/items.js';
import { charEstimate } from './builder.js';

export const PAGE: PageSpec = { width: 400, height: 300, cell: '4x6', scale: 1, tokens: 100 };

/** Options for `profile` (or `extra.profile`) with a budget of its whole window and a fixed clock. */
export function ladderOptions(profile: CompactionProfile, extra: Partial<LadderOptions> = {}): LadderOptions {
  const p = extra.profile ?? profile;
  return {
    model: 'test-model',
    profile: p,
    budget: computeBudget(p, { margin: 0, triggerAt: 1 }),
    estimate: charEstimate,
    estimateText: (t) => Math.ceil(t.length / 4),
    renderer: RENDERER,
    page: PAGE,
    clock: () => 0,
    ...extra,
  };
}

/** A state by hand; `target` and `overhead` set so the boundary is where the test wants it. */
export function stateOf(
  items: Item[],
  o: LadderOptions,
  over: { target?: number; overhead?: number; force?: boolean; pending?: IdRange[] } = {},
): LadderState {
  const tokens = items.map(o.estimate);
  const target = over.target ?? o.budget.target;
  const overhead = over.overhead ?? 0;
  return {
    options: o,
    items,
    tokens,
    original: items,
    sticky: { elided: new Set(), shed: new Set() },
    pending: over.pending ?? [],
    records: [],
    target,
    overhead,
    force: over.force ?? false,
    fits: () => tokens.reduce((a, b) => a + b, 0) + overhead <= target,
  };
}
