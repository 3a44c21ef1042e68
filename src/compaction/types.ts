/**
 * Shared types of the compaction ladder. Every rung is a pure function of (path, profile, budget,
 * options) that returns a request-side rewrite of the item list plus what it did; the record is never
 * touched (DESIGN.md, "record vs request").
 */
import type { Item } from '../transcript/items.js';

/** The four rungs, cheapest first. */
export type RungName = 'elide' | 'shed' | 'snapshot' | 'summarize';
export const RUNGS: readonly RungName[] = ['elide', 'shed', 'snapshot', 'summarize'];

/** Estimated input tokens of one item as the target provider would count it. */
export type Estimator = (item: Item) => number;

/**
 * The part of a provider profile compaction reads. `src/providers` owns the full `Profile`; this
 * structural subset keeps the pure rungs independent of its other fields.
 */
export interface CompactionProfile {
  family?: string;
  provider?: string;
  contextWindow: number;
  maxOutput: number;
  vision: boolean;
  images?: { maxPerRequest: number; maxBytesPerImage: number; maxBytesPerRequest: number };
  cache?: { writeMultiplier: number; readMultiplier: number; ttlSeconds?: number };
}

/** What one rung did, for the report. */
export interface RungReport {
  /** A `RungName` for the shipped rungs; a custom rung's own name otherwise. */
  rung: RungName | (string & {});
  /** Whether the rung changed the request. */
  applied: boolean;
  tokensBefore: number;
  tokensAfter: number;
  /** Ids of the record items the rung rewrote. */
  items: string[];
  /** Why it did or did not apply, in words a user reads. */
  reason: string;
  /** Rung-specific figures (pages, chars, ratio, calls). */
  details?: Record<string, number | string | boolean>;
}

/** The outcome of one rung: the rewritten request items and what happened. */
export interface RungResult {
  items: Item[];
  report: RungReport;
}
