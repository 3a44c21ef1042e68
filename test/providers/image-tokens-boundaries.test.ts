/**
 * Image rules at every limit, exactly and one pixel past (issue 18): each built-in profile's rule is
 * probed at its own limits (read from the profile, so the test follows the data), the fast
 * `unresizedTokensFn` must agree with `unresizedCost` there, and `wouldResize` applies Anthropic's
 * many-image rule at its exact count and side.
 */
import { describe, expect, it } from 'vitest';
import {
  imageCost,
  imageTokens,
  unresizedCost,
  unresizedTokensFn,
  wouldResize,
  detailLevels,
} from '../../src/providers/image-tokens.js';
import { listProfiles } from '../../src/providers/registry.js';
import type { Profile } from '../../src/providers/types.js';

const profiles = listProfiles().filter((p) => p.vision);
const byKind = (kind: Profile['image']['kind']): Profile => profiles.find((p) => p.image.kind === kind)!;

/** Sides worth probing for a rule: each limit, one below and one above, and small sizes. */
function limitsOf(p: Profile): number[] {
  const r = p.image;
  const out = [1, 2, 27, 28, 29, 511, 512, 513];
  const add = (...v: (number | null | undefined)[]) => {
    for (const x of v) if (typeof x === 'number' && Number.isFinite(x)) out.push(x - 1, x, x + 1);
  };
  switch (r.kind) {
    case 'anthropic-patch':
      add(
        r.maxLongEdge,
        r.patch * Math.floor(r.maxLongEdge / r.patch),
        Math.floor(Math.sqrt(r.maxTokens)) * r.patch,
      );
      break;
    case 'openai-tile':
      add(r.box, r.shortSide, r.tile, 2 * r.tile);
      break;
    case 'openai-patch':
      for (const l of Object.values(r.details))
        add(l.maxSide, l.patchBudget === null ? null : Math.floor(Math.sqrt(l.patchBudget)) * r.patch);
      break;
    case 'gemini-tile':
      add(r.smallMax, r.tile, r.pageMaxSide);
      break;
    case 'flat':
      add(r.pageMaxSide);
      break;
  }
  return [...new Set(out)].filter((x) => x >= 1).sort((a, b) => a - b);
}

describe('every vision profile agrees with itself at its limits', () => {
  for (const p of profiles) {
    const levels = detailLevels(p);
    for (const detail of levels.length ? levels : [undefined]) {
      it(`${p.family}${detail ? ` detail ${detail}` : ''}`, () => {
        const fn = unresizedTokensFn(p, { detail });
        const sides = limitsOf(p);
        let resized = 0;
        let kept = 0;
        for (const w of sides) {
          for (const h of [sides[0]!, sides[Math.floor(sides.length / 2)]!, w, sides[sides.length - 1]!]) {
            const slow = unresizedCost(p, w, h, { detail });
            const cost = imageCost(p, w, h, { detail });
            expect(fn(w, h), `${w}x${h}`).toBe(slow ? slow.tokens : -1);
            expect(slow === undefined, `${w}x${h}`).toBe(cost.resized);
            expect(imageTokens(p, w, h, { detail })).toBe(cost.tokens);
            if (cost.resized) {
              resized++;
              // The processed size is smaller, and is itself taken as it is.
              expect(cost.width <= w && cost.height <= h).toBe(true);
            } else {
              kept++;
              expect([cost.width, cost.height]).toEqual([w, h]);
            }
          }
        }
        // Non-vacuity: the probe reaches both sides of the limits.
        expect(kept).toBeGreaterThan(0);
        if (p.image.kind !== 'flat' || Math.max(...sides) > p.image.pageMaxSide)
          expect(resized).toBeGreaterThan(0);
      });
    }
  }
});

describe('exact limits, rule by rule', () => {
  it('anthropic: the long edge is checked on the padded size, the token cap inclusive', () => {
    const p = byKind('anthropic-patch');
    const r = p.image as Extract<Profile['image'], { kind: 'anthropic-patch' }>;
    const edge = r.patch * Math.floor(r.maxLongEdge / r.patch); // largest padded edge within the limit
    expect(imageCost(p, edge, r.patch)).toEqual({
      tokens: edge / r.patch,
      width: edge,
      height: r.patch,
      resized: false,
    });
    const over = imageCost(p, edge + 1, r.patch);
    expect(over.resized).toBe(edge + r.patch > r.maxLongEdge);
    // Tokens: a square of n×n patches with n² = maxTokens or just below fits; one patch more does not.
    const n = Math.floor(Math.sqrt(r.maxTokens));
    expect(imageCost(p, n * r.patch, n * r.patch).resized).toBe(n * r.patch > r.maxLongEdge);
    const cols = Math.floor(r.maxTokens / n);
    if (cols * r.patch <= r.maxLongEdge) {
      expect(imageCost(p, cols * r.patch, n * r.patch)).toMatchObject({ tokens: cols * n, resized: false });
      if ((cols + 1) * n > r.maxTokens && (cols + 1) * r.patch <= r.maxLongEdge)
        expect(imageCost(p, (cols + 1) * r.patch, n * r.patch).resized).toBe(true);
    }
    // A resized image is the largest that fits: one pixel more on the long side would not.
    const big = imageCost(p, 4000, 3000);
    expect(big.resized).toBe(true);
    expect(unresizedCost(p, big.width, big.height)?.tokens).toBe(big.tokens);
    expect(unresizedCost(p, big.width + 1, Math.round((3000 * (big.width + 1)) / 4000))).toBeUndefined();
    expect(imageCost(p, 3000, 4000)).toMatchObject({
      width: big.height,
      height: big.width,
      tokens: big.tokens,
    });
  });

  it('openai tiles: box and short side inclusive, low detail within 512 inclusive', () => {
    const p = byKind('openai-tile');
    const r = p.image as Extract<Profile['image'], { kind: 'openai-tile' }>;
    expect(imageCost(p, r.box, r.shortSide, { detail: 'high' }).resized).toBe(false);
    expect(imageCost(p, r.box + 1, r.shortSide, { detail: 'high' }).resized).toBe(true);
    expect(imageCost(p, r.box, r.shortSide + 1, { detail: 'high' })).toMatchObject({
      resized: true,
      height: r.shortSide,
    });
    expect(imageCost(p, r.tile, r.tile, { detail: 'high' }).tokens).toBe(r.baseTokens + r.tileTokens);
    expect(imageCost(p, r.tile + 1, r.tile, { detail: 'high' }).tokens).toBe(r.baseTokens + 2 * r.tileTokens);
    if (r.details.includes('low')) {
      expect(imageCost(p, 512, 300, { detail: 'low' })).toEqual({
        tokens: r.baseTokens,
        width: 512,
        height: 300,
        resized: false,
        detail: 'low',
      });
      expect(imageCost(p, 1024, 300, { detail: 'low' })).toEqual({
        tokens: r.baseTokens,
        width: 512,
        height: 150,
        resized: true,
        detail: 'low',
      });
      expect(imageCost(p, 5000, 1, { detail: 'low' })).toMatchObject({ width: 512, height: 1 });
    }
  });

  it('openai patches: max side and patch budget inclusive', () => {
    const p = byKind('openai-patch');
    const r = p.image as Extract<Profile['image'], { kind: 'openai-patch' }>;
    for (const [detail, level] of Object.entries(r.details)) {
      if (level.patchBudget !== null) {
        const n = Math.floor(Math.sqrt(level.patchBudget));
        const side = n * r.patch;
        if (level.maxSide === null || side <= level.maxSide) {
          expect(imageCost(p, side, side, { detail })).toMatchObject({
            resized: false,
            tokens: Math.ceil(n * n * r.multiplier - 1e-9),
          });
          const cols = Math.floor(level.patchBudget / n);
          if (
            (cols + 1) * n > level.patchBudget &&
            (level.maxSide === null || (cols + 1) * r.patch <= level.maxSide)
          ) {
            const c = imageCost(p, (cols + 1) * r.patch, side, { detail });
            expect(c.resized).toBe(true);
            expect(Math.ceil(c.width / r.patch) * Math.ceil(c.height / r.patch)).toBeLessThanOrEqual(
              level.patchBudget,
            );
          }
        }
      }
      if (level.maxSide !== null) {
        expect(imageCost(p, level.maxSide + 1, 10, { detail })).toMatchObject({ resized: true });
        expect(imageCost(p, level.maxSide + 1, 10, { detail }).width).toBeLessThanOrEqual(level.maxSide);
      }
    }
  });

  it('gemini tiles: small sizes inclusive, one tile inclusive, beyond it the size is unknown', () => {
    const p = byKind('gemini-tile');
    const r = p.image as Extract<Profile['image'], { kind: 'gemini-tile' }>;
    expect(imageCost(p, r.smallMax, r.smallMax)).toEqual({
      tokens: r.smallTokens,
      width: r.smallMax,
      height: r.smallMax,
      resized: false,
    });
    expect(imageCost(p, r.smallMax + 1, r.smallMax).tokens).toBe(r.tileTokens);
    expect(imageCost(p, r.smallMax, r.smallMax + 1).tokens).toBe(r.tileTokens);
    expect(imageCost(p, r.tile, r.tile)).toEqual({
      tokens: r.tileTokens,
      width: r.tile,
      height: r.tile,
      resized: false,
    });
    expect(imageCost(p, r.tile + 1, r.tile)).toEqual({
      tokens: 2 * r.tileTokens,
      width: r.tile + 1,
      height: r.tile,
      resized: true,
      sizeUnknown: true,
    });
    expect(imageCost(p, r.tile, r.tile + 1)).toMatchObject({
      tokens: 2 * r.tileTokens,
      resized: true,
      sizeUnknown: true,
    });
  });

  it('flat: resized only beyond the page side, the price from the detail level', () => {
    const p = byKind('flat');
    const r = p.image as Extract<Profile['image'], { kind: 'flat' }>;
    const d = r.defaultDetail;
    expect(imageCost(p, r.pageMaxSide, 10)).toEqual({
      tokens: r.details[d],
      width: r.pageMaxSide,
      height: 10,
      resized: false,
      detail: d,
      sizeUnknown: true,
    });
    expect(imageCost(p, 10, r.pageMaxSide + 1).resized).toBe(true);
    for (const [level, tokens] of Object.entries(r.details))
      expect(imageTokens(p, 10, 10, { detail: level })).toBe(tokens);
  });

  it('wouldResize: the many-image rule at exactly `above` images and exactly `maxSide`', () => {
    // A profile whose own rule takes a side just over the many-image limit as it is (claude-opus-4-7: 2576 px).
    const p = profiles.find(
      (x) =>
        x.images.manyImages &&
        x.image.kind === 'anthropic-patch' &&
        x.image.maxLongEdge > x.images.manyImages.maxSide,
    )!;
    const many = p.images.manyImages!;
    const side = many.maxSide + 1;
    const h = 28;
    expect(imageCost(p, side, h).resized).toBe(false);
    expect(wouldResize(p, side, h, { imagesInRequest: many.above })).toBe(false);
    expect(wouldResize(p, side, h, { imagesInRequest: many.above + 1 })).toBe(true);
    expect(wouldResize(p, side, h)).toBe(false);
    expect(wouldResize(p, many.maxSide, h, { imagesInRequest: many.above + 1 })).toBe(false);
    expect(wouldResize(p, 10_000, 10_000)).toBe(true);
  });

  it('rejects zero, fractions and non-numbers on either side, and detail on rules without levels', () => {
    const p = byKind('anthropic-patch');
    for (const [w, h, name] of [
      [0, 5, 'width'],
      [5, 0, 'height'],
      [1.5, 5, 'width'],
      [5, Number.NaN, 'height'],
    ] as const)
      expect(() => imageCost(p, w, h)).toThrow(`image ${name} must be a positive integer number of pixels`);
    expect(() => unresizedCost(p, 0, 1)).toThrow(/image width must be a positive integer/);
    expect(() => imageCost(p, 10, 10, { detail: 'high' })).toThrow(/this model has no detail levels/);
    expect(imageCost(p, 10, 10, { detail: 'auto' }).tokens).toBe(1);
    expect(() => unresizedTokensFn(p, { detail: 'low' })).toThrow(/this model has no detail levels/);
    const g = byKind('gemini-tile');
    expect(() => unresizedTokensFn(g, { detail: 'low' })).toThrow(/this model has no detail levels/);
    expect(() => imageCost(g, 10, 10, { detail: 'low' })).toThrow(/this model has no detail levels/);
    const blind = listProfiles().find((x) => !x.vision);
    if (blind) {
      expect(() => unresizedTokensFn(blind)).toThrow(/has no vision/);
      expect(() => imageCost(blind, 10, 10)).toThrow(
        `${blind.name} (${blind.family}) has no vision: it cannot read images`,
      );
    }
  });
});
