import { describe, expect, it } from 'vitest';
import { computeBudget } from '../../src/compaction/budget.js';
import { cacheWarm, compactionEconomics, shouldCompact } from '../../src/compaction/economics.js';

const profile = {
  contextWindow: 200_000,
  maxOutput: 32_000,
  vision: true,
  cache: { writeMultiplier: 1.25, readMultiplier: 0.1 },
};

describe('economics', () => {
  it('knows when the cache is cold', () => {
    expect(cacheWarm({})).toBe(false);
    expect(cacheWarm({ lastCallAt: 0, now: 299_000 })).toBe(true);
    expect(cacheWarm({ lastCallAt: 0, now: 300_000 })).toBe(false);
    expect(cacheWarm({ lastCallAt: 0, now: 3_000_000, ttlSeconds: 3600 })).toBe(true);
  });

  it('prices compacting now against carrying on', () => {
    const warm = compactionEconomics(
      { tokensBefore: 100_000, tokensAfter: 40_000, unchangedPrefix: 10_000, warm: true },
      profile,
    );
    expect(warm.carryOn).toBe(10_000);
    expect(warm.compactNow).toBe(1000 + 30_000 * 1.25);
    expect(warm.savedPerLaterCall).toBe(6000);
    expect(warm.breakEvenCalls).toBe(Math.ceil((38_500 - 10_000) / 6000));
    const cold = compactionEconomics(
      { tokensBefore: 100_000, tokensAfter: 40_000, unchangedPrefix: 10_000, warm: false },
      profile,
    );
    expect(cold.carryOn).toBe(125_000);
    expect(cold.compactNow).toBe(50_000);
    expect(cold.breakEvenCalls).toBe(0);
  });

  it('prefers compacting early only when the cache is cold', () => {
    const budget = computeBudget(profile, { triggerAt: 100_000 });
    expect(shouldCompact(80_000, budget, true).compact).toBe(false);
    const cold = shouldCompact(80_000, budget, false);
    expect(cold.compact).toBe(true);
    expect(cold.reason).toMatch(/cache is cold/);
    expect(shouldCompact(70_000, budget, false).compact).toBe(false);
    expect(shouldCompact(100_001, budget, true).reason).toMatch(/exceeds the trigger/);
    expect(shouldCompact(budget.limit + 1, budget, true).reason).toMatch(/exceeds the input limit/);
  });
});
