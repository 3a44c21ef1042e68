import { describe, expect, it } from 'vitest';
import { computeBudget, resolveThreshold } from '../../src/compaction/budget.js';

const profile = { contextWindow: 200_000, maxOutput: 64_000, vision: true };

describe('computeBudget', () => {
  it('is window − output − margin, output capped at a quarter of the window', () => {
    const b = computeBudget(profile);
    expect(b.maxOutput).toBe(50_000);
    expect(b.margin).toBe(4000);
    expect(b.limit).toBe(146_000);
    expect(b.trigger).toBe(Math.floor(0.9 * 146_000));
    expect(b.target).toBe(b.trigger);
  });

  it('lets the trigger be lowered and raised, as tokens or a fraction', () => {
    expect(computeBudget(profile, { triggerAt: 0.5 }).trigger).toBe(73_000);
    expect(computeBudget(profile, { triggerAt: '50%' }).trigger).toBe(73_000);
    expect(computeBudget(profile, { triggerAt: '100k' }).trigger).toBe(100_000);
    // Raised above the default 90% and even into the margin (up to window − output).
    const high = computeBudget(profile, { triggerAt: 149_000 });
    expect(high.trigger).toBe(149_000);
    expect(high.target).toBe(146_000);
  });

  it('rejects thresholds that cannot work, naming them', () => {
    expect(() => computeBudget(profile, { triggerAt: 160_000 })).toThrow(
      /triggerAt 160000 tokens exceeds .*150000/,
    );
    expect(() => computeBudget(profile, { triggerAt: 'lots' })).toThrow(
      /triggerAt must be tokens .* found 'lots'/,
    );
    expect(() => computeBudget(profile, { triggerAt: -1 })).toThrow(/triggerAt must be > 0/);
    expect(() => computeBudget(profile, { triggerAt: 1.5 })).toThrow(/whole tokens/);
    expect(() => computeBudget(profile, { window: 1000, maxOutput: 900, margin: 200 })).toThrow(
      /nothing left/,
    );
    expect(() => computeBudget(profile, { window: 0 })).toThrow(/window must be a positive integer/);
  });

  it('takes a window override (the CLI --budget)', () => {
    const b = computeBudget(profile, { window: 60_000 });
    expect(b.window).toBe(60_000);
    expect(b.maxOutput).toBe(15_000);
    expect(b.limit).toBe(60_000 - 15_000 - 1200);
  });

  it('parses fractions and token counts', () => {
    expect(resolveThreshold('x', 1, 1000, 2000)).toBe(1000);
    expect(resolveThreshold('x', '0.25', 1000, 2000)).toBe(250);
    expect(resolveThreshold('x', 1500, 1000, 2000)).toBe(1500);
  });
});
