/**
 * The token budget of one request: how much input fits (window − reserved output − margin), when to
 * compact (`trigger`), and what compaction aims for (`target`). Users can move the trigger both ways:
 * lower to compact early (e.g. to stay under a price tier), higher to use the whole window.
 */
import type { CompactionProfile } from './types.js';

/**
 * A threshold in tokens or as a fraction of the input limit: a number in (0, 1] is a fraction,
 * an integer > 1 is tokens; strings `'85%'`, `'0.85'` and `'150000'` / `'150k'` are accepted too.
 */
export type Threshold = number | string;

export interface BudgetOptions {
  /** Overrides the profile's context window (the CLI's `--budget`). */
  window?: number;
  /** Output tokens reserved for the answer. Default: the profile's max output, at most a quarter of the window. */
  maxOutput?: number;
  /** Tokens kept free for estimate error. Default: 2% of the window, at least 256. */
  margin?: number;
  /** When to compact before a call. Default 90% of the limit. May exceed the limit up to window − output (eats the margin). */
  triggerAt?: Threshold;
  /** What the ladder aims for once it runs. Default: the trigger, capped at the limit. */
  targetAt?: Threshold;
}

export interface Budget {
  /** Context window of the model (or the override). */
  window: number;
  /** Output tokens reserved. */
  maxOutput: number;
  /** Tokens kept free for estimate error. */
  margin: number;
  /** Most input tokens a request may carry: window − maxOutput − margin. */
  limit: number;
  /** Proactive compaction starts when the estimate exceeds this. */
  trigger: number;
  /** The ladder stops as soon as the estimate is at or below this. */
  target: number;
}

export const DEFAULT_TRIGGER = 0.9;

function positiveInteger(name: string, value: number): number {
  if (!Number.isFinite(value) || !Number.isInteger(value) || value <= 0) {
    throw new RangeError(`budget: ${name} must be a positive integer, found ${String(value)}`);
  }
  return value;
}

/** Parses a threshold into tokens relative to `limit`; `max` is the highest allowed value. */
export function resolveThreshold(name: string, value: Threshold, limit: number, max: number): number {
  let tokens: number;
  if (typeof value === 'string') {
    const s = value.trim().toLowerCase();
    const m = /^(\d+(?:\.\d+)?)\s*(%|k|m)?$/.exec(s);
    if (!m) {
      throw new RangeError(
        `budget: ${name} must be tokens (e.g. 150000, 150k) or a fraction (e.g. 0.8, 80%), found '${value}'`,
      );
    }
    const n = Number(m[1]);
    const unit = m[2];
    if (unit === '%') return resolveThreshold(name, n / 100, limit, max);
    if (unit === 'k') return resolveThreshold(name, Math.round(n * 1000), limit, max);
    if (unit === 'm') return resolveThreshold(name, Math.round(n * 1_000_000), limit, max);
    return resolveThreshold(name, n, limit, max);
  }
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`budget: ${name} must be > 0, found ${String(value)}`);
  }
  if (value <= 1) tokens = Math.floor(value * limit);
  else if (Number.isInteger(value)) tokens = value;
  else throw new RangeError(`budget: ${name} above 1 must be whole tokens, found ${String(value)}`);
  if (tokens > max) {
    throw new RangeError(
      `budget: ${name} ${tokens} tokens exceeds the most a request can carry (${max} = window − output)`,
    );
  }
  return tokens;
}

/** The budget of requests to a model with `profile`; throws a RangeError naming a bad value. */
export function computeBudget(profile: CompactionProfile, options: BudgetOptions = {}): Budget {
  const window = positiveInteger('window', options.window ?? profile.contextWindow);
  const maxOutput =
    options.maxOutput ??
    Math.min(positiveInteger('profile maxOutput', profile.maxOutput), Math.floor(window / 4));
  if (!Number.isInteger(maxOutput) || maxOutput < 0 || maxOutput >= window) {
    throw new RangeError(`budget: maxOutput must be an integer from 0 to ${window - 1}, found ${maxOutput}`);
  }
  const margin = options.margin ?? Math.max(256, Math.ceil(window * 0.02));
  if (!Number.isInteger(margin) || margin < 0) {
    throw new RangeError(`budget: margin must be a non-negative integer, found ${String(margin)}`);
  }
  const limit = window - maxOutput - margin;
  if (limit <= 0) {
    throw new RangeError(
      `budget: nothing left for input: window ${window} − maxOutput ${maxOutput} − margin ${margin} = ${limit}`,
    );
  }
  const max = window - maxOutput;
  const trigger = resolveThreshold('triggerAt', options.triggerAt ?? DEFAULT_TRIGGER, limit, max);
  const target =
    options.targetAt === undefined
      ? Math.min(trigger, limit)
      : Math.min(resolveThreshold('targetAt', options.targetAt, limit, max), limit);
  return { window, maxOutput, margin, limit, trigger, target };
}
