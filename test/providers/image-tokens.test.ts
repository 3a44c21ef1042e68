import { describe, expect, it } from 'vitest';
import {
  fitPatchBudget,
  imageCost,
  imageTokens,
  resolveProfile,
  unresizedCost,
  wouldResize,
} from '../../src/providers/index.js';

const p = (id: string) => resolveProfile(id).profile;

describe('Anthropic: 28-px patches', () => {
  it('reproduces the worked examples', () => {
    // PROVIDERS.md: Claude standard 1092×1092 → 39 × 39 = 1521; Opus 4.7 2000×1500 → 72 × 54 = 3888.
    expect(imageTokens(p('claude-sonnet-4-5'), 1092, 1092)).toBe(1521);
    expect(wouldResize(p('claude-sonnet-4-5'), 1092, 1092)).toBe(false);
    expect(imageTokens(p('claude-opus-4-7'), 2000, 1500)).toBe(3888);
    expect(wouldResize(p('claude-opus-4-7'), 2000, 1500)).toBe(false);
  });

  it('pads to whole patches and checks the long edge on the padded size', () => {
    const std = p('claude-haiku-4-5');
    expect(imageTokens(std, 29, 1)).toBe(2);
    expect(wouldResize(std, 1568, 784)).toBe(false);
    // 1569 px pads to 1596 > 1568.
    expect(wouldResize(std, 1569, 100)).toBe(true);
    // 1400×1400 is under the edge limit but 50 × 50 = 2500 tokens > 1568.
    expect(wouldResize(std, 1400, 1400)).toBe(true);
  });

  it('resizes to the largest aspect-preserving size within both limits', () => {
    const std = p('claude-sonnet-4-5');
    const c = imageCost(std, 2000, 1000);
    expect(c).toMatchObject({ resized: true, width: 1568, height: 784, tokens: 1568 });
    for (const [id, w, h] of [
      ['claude-sonnet-4-5', 4000, 3000],
      ['claude-opus-4-7', 4000, 3000],
      ['claude-opus-4-7', 9000, 500],
      ['claude-haiku-4-5', 1400, 1400],
    ] as const) {
      const prof = p(id);
      const r = imageCost(prof, w, h);
      expect(r.resized).toBe(true);
      expect(wouldResize(prof, r.width, r.height)).toBe(false);
      // Aspect kept (to the pixel) and one pixel more on the long side breaks a limit.
      expect(Math.abs(r.height / r.width - h / w)).toBeLessThan(1 / Math.min(r.width, r.height));
      const longer =
        w >= h
          ? [r.width + 1, Math.round((h * (r.width + 1)) / w)]
          : [Math.round((w * (r.height + 1)) / h), r.height + 1];
      expect(wouldResize(prof, longer[0]!, longer[1]!)).toBe(true);
    }
  });
});

describe('OpenAI tiles', () => {
  it('reproduces the worked examples', () => {
    expect(imageTokens(p('gpt-4o'), 512, 2048, { detail: 'high' })).toBe(765);
    expect(imageTokens(p('gpt-5'), 512, 2048, { detail: 'high' })).toBe(630);
    expect(imageTokens(p('gpt-4o'), 768, 2048, { detail: 'high' })).toBe(1445);
    // The vision guide's example: 2048×4096 → 1024×2048 → 768×1536 → 6 tiles → 1105.
    expect(imageCost(p('gpt-4o'), 2048, 4096, { detail: 'high' })).toMatchObject({
      width: 768,
      height: 1536,
      tokens: 1105,
      resized: true,
    });
  });

  it('prices low as the base and auto as high', () => {
    expect(imageTokens(p('gpt-4o'), 4000, 4000, { detail: 'low' })).toBe(85);
    expect(imageTokens(p('gpt-4o-mini'), 512, 512, { detail: 'low' })).toBe(2833);
    expect(imageTokens(p('gpt-4o-mini'), 512, 512, { detail: 'high' })).toBe(2833 + 5667);
    expect(imageTokens(p('o3'), 512, 512, { detail: 'auto' })).toBe(75 + 150);
  });

  it('never scales a short side up', () => {
    expect(imageCost(p('gpt-4o'), 300, 200, { detail: 'high' })).toMatchObject({
      resized: false,
      tokens: 255,
    });
  });
});

describe('OpenAI patches', () => {
  it('reproduces the worked examples', () => {
    expect(imageTokens(p('gpt-5.4'), 1024, 1024, { detail: 'high' })).toBe(1229);
    expect(imageCost(p('gpt-5.4'), 2048, 2048, { detail: 'high' })).toMatchObject({
      tokens: 3000,
      width: 1600,
      height: 1600,
      resized: true,
    });
    expect(imageTokens(p('gpt-5.4'), 2048, 1248, { detail: 'high' })).toBe(2996);
    expect(wouldResize(p('gpt-5.4'), 2048, 1248, { detail: 'high' })).toBe(false);
  });

  it('follows the documented shrink formula (1800×2400, budget 1536 → 1056×1408, 1452 patches)', () => {
    expect(fitPatchBudget(1800, 2400, 32, 1536)).toEqual({ width: 1056, height: 1408 });
    // o4-mini: 1536-patch budget, multiplier 1.72.
    expect(imageTokens(p('o4-mini'), 1800, 2400)).toBe(Math.ceil(1452 * 1.72));
  });

  it('applies each model’s detail levels and multipliers', () => {
    // gpt-5.4: auto = high; gpt-5.5: auto = original (10,000 patches).
    expect(imageTokens(p('gpt-5.4'), 3200, 3200)).toBe(3000);
    expect(imageTokens(p('gpt-5.5'), 3200, 3200)).toBe(12000);
    // gpt-5.6 original keeps the size: no budget.
    expect(imageCost(p('gpt-5.6'), 6400, 6400)).toMatchObject({
      resized: false,
      tokens: Math.ceil(200 * 200 * 1.2),
    });
    expect(imageTokens(p('gpt-4.1-mini'), 1024, 1024)).toBe(Math.ceil(1024 * 1.62));
    expect(imageTokens(p('gpt-4.1-nano'), 1024, 1024)).toBe(Math.ceil(1024 * 2.46));
    expect(imageTokens(p('gpt-5-nano'), 1024, 1024)).toBe(Math.ceil(1024 * 1.5));
  });
});

describe('Gemini', () => {
  it('Gemini 2.x: small images are one unit, larger ones 768-px tiles', () => {
    expect(imageTokens(p('gemini-2.5-pro'), 384, 384)).toBe(258);
    expect(imageTokens(p('gemini-2.5-pro'), 385, 100)).toBe(258);
    expect(imageTokens(p('gemini-2.5-flash'), 1536, 769)).toBe(4 * 258);
    expect(wouldResize(p('gemini-2.5-flash'), 768, 768)).toBe(false);
  });

  it('Gemini 3: a flat price per media_resolution', () => {
    const g = p('gemini-3-pro');
    expect(imageTokens(g, 100, 100)).toBe(1120);
    expect(imageTokens(g, 3000, 3000, { detail: 'low' })).toBe(280);
    expect(imageTokens(g, 10, 10, { detail: 'medium' })).toBe(560);
    expect(imageTokens(g, 10, 10, { detail: 'ultra_high' })).toBe(2240);
    expect(imageCost(g, 10, 10).sizeUnknown).toBe(true);
  });
});

describe('bad input', () => {
  it('rejects sizes that are not positive integers', () => {
    const c = p('claude-opus-4-7');
    expect(() => imageTokens(c, -1, 10)).toThrow(/width must be a positive integer.*found -1/);
    expect(() => imageTokens(c, 10, 1.5)).toThrow(/height must be a positive integer.*found 1.5/);
    expect(() => imageTokens(c, 0, 10)).toThrow(RangeError);
    expect(() => imageTokens(c, Number.NaN, 10)).toThrow(RangeError);
    expect(() => unresizedCost(c, 10, -3)).toThrow(/height/);
  });

  it('rejects unknown detail levels, naming the model and the levels it has', () => {
    expect(() => imageTokens(p('gpt-4o'), 10, 10, { detail: 'original' })).toThrow(
      /unknown detail 'original' for GPT-4o \(gpt-4o\): expected one of low, high, auto/,
    );
    expect(() => imageTokens(p('gpt-5.2'), 10, 10, { detail: 'original' })).toThrow(/low, high, auto/);
    expect(() => imageTokens(p('gemini-3-pro'), 10, 10, { detail: 'huge' })).toThrow(/ultra_high/);
    expect(() => imageTokens(p('claude-opus-4-7'), 10, 10, { detail: 'high' })).toThrow(/no detail levels/);
  });

  it('refuses images for a model without vision', () => {
    expect(() => imageTokens(p('o3-mini'), 10, 10)).toThrow(/no vision/);
    expect(() => imageTokens(p('gpt-3.5-turbo'), 10, 10)).toThrow(/no vision/);
  });
});
