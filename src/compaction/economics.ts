/**
 * What compacting costs against carrying on, in input-token equivalents (tokens × the profile's
 * price multipliers; 1 = one uncached input token). Compaction rewrites the request from its first
 * changed item, so everything after that is a prompt-cache write instead of a read; when the cache is
 * already cold (last call older than the TTL) carrying on pays that write too, so that is the cheap
 * moment to compact (PEERS.md #5).
 */
import type { Budget } from './budget.js';
import type { CompactionProfile } from './types.js';

/** Anthropic's default cache lifetime; OpenAI keeps prefixes 5–10 minutes. */
export const DEFAULT_CACHE_TTL_SECONDS = 300;

export interface CacheState {
  /** When the previous call to this model with this prefix was made (ms since epoch). */
  lastCallAt?: number;
  /** Now (ms since epoch); pass it for determinism. Default `Date.now()`. */
  now?: number;
  /** Cache lifetime. Default: the profile's, else 300 s. */
  ttlSeconds?: number;
  /** No call has been made with this prefix yet (a new or resumed session): the cache is cold. */
  firstCall?: boolean;
}

/**
 * What is known of the prompt cache: `unknown` when the caller said nothing (no `cache` option, or no
 * `lastCallAt` and not `firstCall`). Unknown is its own state: it never triggers early compaction.
 */
export type CacheStatus = 'warm' | 'cold' | 'unknown';

/** The cache's state from what the caller passed. */
export function cacheStatus(state: CacheState | undefined, profile?: CompactionProfile): CacheStatus {
  if (!state || (state.lastCallAt === undefined && !state.firstCall)) return 'unknown';
  return cacheWarm(state, profile) ? 'warm' : 'cold';
}

/** True when a cached prefix is still alive. No previous call means cold. */
export function cacheWarm(state: CacheState, profile?: CompactionProfile): boolean {
  if (state.lastCallAt === undefined) return false;
  const ttl = state.ttlSeconds ?? profile?.cache?.ttlSeconds ?? DEFAULT_CACHE_TTL_SECONDS;
  const now = state.now ?? Date.now();
  return now - state.lastCallAt < ttl * 1000;
}

export interface Economics {
  /** Whether the cache was warm when this was estimated (an unknown cache is figured as warm). */
  warm: boolean;
  /** The cache state the figures assume. */
  cache: CacheStatus;
  /** Next call if we carry on with the request as it is. */
  carryOn: number;
  /** Next call after compacting now. */
  compactNow: number;
  /** Every later call saves this much (cached reads of the tokens no longer sent). */
  savedPerLaterCall: number;
  /** Later calls until compacting has paid for itself (0 when it is cheaper at once). */
  breakEvenCalls: number;
  unit: 'input-token equivalents';
}

export interface EconomicsInput {
  /** Tokens of the request as it is. */
  tokensBefore: number;
  /** Tokens of the compacted request. */
  tokensAfter: number;
  /** Tokens before the first item compaction changed (still a cache hit after compacting). */
  unchangedPrefix: number;
  /** A boolean is `warm`/`cold`. An unknown cache is figured as warm: compacting at its dearest. */
  warm: boolean | CacheStatus;
}

/** Cost of the next call both ways. Multipliers come from the profile (1.25× write, 0.1× read if absent). */
export function compactionEconomics(input: EconomicsInput, profile: CompactionProfile): Economics {
  const write = profile.cache?.writeMultiplier ?? 1.25;
  const read = profile.cache?.readMultiplier ?? 0.1;
  const { tokensBefore, tokensAfter } = input;
  const cache: CacheStatus = typeof input.warm === 'boolean' ? (input.warm ? 'warm' : 'cold') : input.warm;
  const warm = cache !== 'cold';
  const prefix = Math.min(input.unchangedPrefix, tokensAfter, tokensBefore);
  const carryOn = warm ? tokensBefore * read : tokensBefore * write;
  const compactNow = (warm ? prefix * read : prefix * write) + (tokensAfter - prefix) * write;
  const savedPerLaterCall = Math.max(0, (tokensBefore - tokensAfter) * read);
  const extra = compactNow - carryOn;
  const breakEvenCalls =
    extra <= 0 ? 0 : savedPerLaterCall > 0 ? Math.ceil(extra / savedPerLaterCall) : Infinity;
  return {
    warm,
    cache,
    carryOn: Math.round(carryOn),
    compactNow: Math.round(compactNow),
    savedPerLaterCall: Math.round(savedPerLaterCall),
    breakEvenCalls,
    unit: 'input-token equivalents',
  };
}

export interface Decision {
  compact: boolean;
  reason: string;
}

/**
 * Whether to compact before the next call. Over the limit: must. Over the trigger: yes. Between
 * `coldAt` (default 75% of the trigger) and the trigger: only when the cache is cold, because then
 * the rewrite costs nothing a carried-on call would not pay anyway.
 */
export function shouldCompact(
  estimate: number,
  budget: Budget,
  cache: boolean | CacheStatus,
  coldAt = 0.75,
): Decision {
  const status: CacheStatus = typeof cache === 'boolean' ? (cache ? 'warm' : 'cold') : cache;
  const warm = status === 'warm';
  if (estimate > budget.limit) {
    return { compact: true, reason: `estimate ${estimate} exceeds the input limit ${budget.limit}` };
  }
  if (estimate > budget.trigger) {
    return { compact: true, reason: `estimate ${estimate} exceeds the trigger ${budget.trigger}` };
  }
  const early = Math.floor(budget.trigger * coldAt);
  if (status === 'unknown') {
    return {
      compact: false,
      reason: `estimate ${estimate} is under the trigger ${budget.trigger}; cache state unknown (no \`cache\` given), so no early compaction`,
    };
  }
  if (!warm && estimate > early) {
    return {
      compact: true,
      reason: `cache is cold and estimate ${estimate} is past ${early} (${Math.round(coldAt * 100)}% of the trigger): compacting now costs no extra cache write`,
    };
  }
  return {
    compact: false,
    reason: warm
      ? `estimate ${estimate} is under the trigger ${budget.trigger}; cache is warm`
      : `estimate ${estimate} is under ${early} (${Math.round(coldAt * 100)}% of the trigger)`,
  };
}
