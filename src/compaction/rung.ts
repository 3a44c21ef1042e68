/**
 * The contract of one ladder rung. A rung is a small value — a name, when it applies, and `apply`,
 * which returns the rewritten request items, the compaction record it writes and its report — so the
 * ladder is a list a harness can add to, remove from and reorder, and a test can drive one rung alone.
 * The four rungs glyphfold ships are in `rungs.ts`; `climb` (ladder.ts) runs a list of them.
 */
import type { Item } from '../transcript/items.js';
import type { LadderOptions } from './ladder.js';
import type { CompactionRecord, IdRange } from './record.js';
import type { RenderedRun } from './snapshot.js';
import type { RungReport } from './types.js';

/** What a rung sees: the request as the rungs before it left it, and the pass's fixed inputs. */
export interface LadderState {
  /** The ladder's options (profile, budget, estimators, renderer, summarizer, per-rung options). */
  readonly options: LadderOptions;
  /** The request items as they stand (no compaction items among them). */
  readonly items: readonly Item[];
  /** `tokens[i]` is the estimate of `items[i]`. */
  readonly tokens: readonly number[];
  /** The record's items (compaction items left out): what rungs that read source text start from. */
  readonly original: readonly Item[];
  /** Ids an earlier compaction elided and shed: kept so for cache stability. */
  readonly sticky: { readonly elided: ReadonlySet<string>; readonly shed: ReadonlySet<string> };
  /**
   * Ranges an earlier rung this pass could not compact and left verbatim for a later rung (the
   * snapshot rung's overflow). Ranges still pending after the last rung are left out of the request
   * with an omission marker; the record keeps them.
   */
  readonly pending: readonly IdRange[];
  /** Records the rungs before this one wrote this pass. */
  readonly records: readonly CompactionRecord[];
  /** The token target of the pass and what the request carries besides its items. */
  readonly target: number;
  readonly overhead: number;
  /** Run even when the request already fits (`/compact`). */
  readonly force: boolean;
  /** Whether `items` plus the overhead fit the target. */
  fits(): boolean;
}

/** What one application of a rung produced. Absent fields leave the state as it was. */
export interface RungStep {
  report: RungReport;
  /** The rewritten request items (with `tokens` to match, or they are re-estimated). */
  items?: Item[];
  tokens?: number[];
  /** The compaction item to append to the record, so a replay rebuilds the same request. */
  record?: CompactionRecord;
  /** Snapshot pages rendered (for writing PNGs). */
  rendered?: RenderedRun[];
  /** Replaces the state's pending ranges (the snapshot rung sets them, the summary rung takes them). */
  pending?: IdRange[];
  /** Notes for the report's reasons. */
  reasons?: string[];
}

/** Why a rung does not run: reported as skipped with `reason`; `note` also puts it in the report's reasons. */
export interface RungSkip {
  skip: string;
  note?: boolean;
}

/**
 * One method of the compaction ladder.
 *
 * A rung that writes a record must use a rung name the record replay knows (`elide`, `shed`,
 * `snapshot`, `summarize`, see record.ts), or a resumed run cannot rebuild its request; a custom rung
 * that writes no record is re-applied on every pass.
 */
export interface Rung {
  /** Shown in the report; the name `LadderOptions.rungs` filters by. */
  readonly name: string;
  /** Whether the rung costs a model call: early (cold-cache) compaction runs only rungs that do not. */
  readonly callsModel?: boolean;
  /** `true` to run, a skip to report why not. */
  when(state: LadderState): true | RungSkip;
  apply(state: LadderState): Promise<RungStep> | RungStep;
}

/** A report for a rung that looked and did nothing (figures without the overhead, like every rung's). */
export function skipped(state: LadderState, rung: string, reason: string): RungReport {
  let t = 0;
  for (const x of state.tokens) t += x;
  return { rung, applied: false, tokensBefore: t, tokensAfter: t, items: [], reason };
}
