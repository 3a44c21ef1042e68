import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CELL_NAMES, MAX_SCALE, cellSize, type CellName } from '../../src/render/cells.js';
import {
  bestPageShape,
  imageTokens,
  largestPage,
  listProfiles,
  pageBytesMax,
  resolveProfile,
  unresizedCost,
  wouldResize,
  type Profile,
} from '../../src/providers/index.js';

const p = (id: string) => resolveProfile(id).profile;

describe('the vendor tables’ best pages (pixel level)', () => {
  it('Anthropic standard: 1568×784 = 1568 tokens', () => {
    expect(largestPage(p('claude-sonnet-4-6'))).toEqual({ width: 1568, height: 784, tokens: 1568 });
    expect(imageTokens(p('claude-sonnet-4-6'), 784, 1568)).toBe(1568);
  });
  it('Anthropic high-res: 2576×1456 = 4784 tokens; with more than 20 images 1988×1876 = 4757', () => {
    expect(largestPage(p('claude-opus-4-7'))).toEqual({ width: 2576, height: 1456, tokens: 4784 });
    expect(largestPage(p('claude-opus-4-7'), { imagesInRequest: 21 })).toEqual({
      width: 1988,
      height: 1876,
      tokens: 4757,
    });
    expect(largestPage(p('claude-opus-4-7'), { imagesInRequest: 20 })).toEqual({
      width: 2576,
      height: 1456,
      tokens: 4784,
    });
    expect(wouldResize(p('claude-opus-4-7'), 2576, 1456, { imagesInRequest: 21 })).toBe(true);
  });
  it('OpenAI patches at high: 2048×1248 = 2996 tokens at 1.2', () => {
    for (const id of ['gpt-5.4', 'gpt-5.5', 'gpt-5.6']) {
      expect(largestPage(p(id), { detail: 'high' })).toEqual({
        width: 2048,
        height: 1248,
        tokens: 2996,
        detail: 'high',
      });
    }
  });
  it('OpenAI tiles: 768×2048 = 1445 (4o) is the largest; 512×2048 = 765 (4o) / 630 (gpt-5) the densest', () => {
    expect(largestPage(p('gpt-4o'))).toEqual({ width: 2048, height: 768, tokens: 1445, detail: 'high' });
    expect(imageTokens(p('gpt-4o'), 768, 2048, { detail: 'high' })).toBe(1445);
    const b4o = bestPageShape(p('gpt-4o'));
    expect([b4o.width, b4o.height, b4o.tokens, b4o.detail]).toEqual([512, 2048, 765, 'high']);
    const b5 = bestPageShape(p('gpt-5'));
    expect([b5.width, b5.height, b5.tokens]).toEqual([512, 2048, 630]);
  });
});

describe('bestPageShape', () => {
  it('fits whole rows: Claude standard with 4x6 cells is 812×1512 (29×54 patches, 51,156 chars)', () => {
    const b = bestPageShape(p('claude-sonnet-4-6'));
    expect(b).toMatchObject({
      width: 812,
      height: 1512,
      tokens: 1566,
      cols: 203,
      rows: 252,
      charsPerPage: 51156,
    });
    // 784 px² per token / 24 px² per character.
    expect(b.charsPerToken).toBeCloseTo(784 / 24, 10);
    expect(b.verified).toBe(true);
  });

  it('honours the many-image rule and counts pages per request', () => {
    const few = bestPageShape(p('claude-opus-4-7'));
    expect(Math.max(few.width, few.height)).toBeGreaterThan(2000);
    expect(few.pagesPerRequest).toBe(20);
    const many = bestPageShape(p('claude-opus-4-7'), { imagesInRequest: 21 });
    expect(Math.max(many.width, many.height)).toBeLessThanOrEqual(2000);
    expect(many.pagesPerRequest).toBeGreaterThan(20);
  });

  it('keeps under the smaller patch budget where vendor pages disagree (gpt-5.2: 6144 vs 1536)', () => {
    const b = bestPageShape(p('gpt-5.2'));
    expect(Math.ceil(b.width / 32) * Math.ceil(b.height / 32)).toBeLessThanOrEqual(1536);
  });

  it('respects route byte limits', () => {
    const direct = bestPageShape(p('claude-opus-4-7'), { imagesInRequest: 40 });
    const bedrock = resolveProfile('us.anthropic.claude-opus-4-7-v1:0').profile;
    expect(bedrock.images.maxBytesPerRequest).toBe(20 * 1024 * 1024);
    const b = bestPageShape(bedrock, { imagesInRequest: 40 });
    expect(b.bytesMax * 40).toBeLessThanOrEqual(bedrock.images.maxBytesPerRequest);
    expect(b.pagesPerRequest).toBeLessThan(direct.pagesPerRequest);
  });

  it('says Gemini 3 pages are unverified', () => {
    const b = bestPageShape(p('gemini-3-pro'));
    expect(b.verified).toBe(false);
    expect(b.note).toMatch(/undocumented.*unverified/);
    expect(b).toMatchObject({ width: 768, height: 768, tokens: 1120, detail: 'high' });
    expect(bestPageShape(p('gemini-2.5-pro'))).toMatchObject({
      width: 768,
      height: 768,
      tokens: 258,
      verified: true,
    });
  });

  it('rejects non-vision models and bad options', () => {
    expect(() => bestPageShape(p('o3-mini'))).toThrow(/no vision.*summary/);
    expect(() => bestPageShape(p('gpt-4o'), { scale: 0 })).toThrow(/scale/);
    expect(() => bestPageShape(p('gpt-4o'), { cell: '9x9' as CellName })).toThrow(/unknown cell/);
    expect(() => bestPageShape(p('gpt-4o'), { imagesInRequest: 0 })).toThrow(/imagesInRequest/);
    expect(() => bestPageShape(p('claude-haiku-4-5'), { imagesInRequest: 101 })).toThrow(
      /limit of 100 images/,
    );
    expect(() => bestPageShape(p('gpt-4o'), { detail: 'ultra' })).toThrow(/unknown detail/);
  });
});

/** One profile per distinct image rule and limits: the property does not need 50 copies of a rule. */
function distinctVisionProfiles(): Profile[] {
  const seen = new Map<string, Profile>();
  for (const prof of listProfiles()) {
    if (!prof.vision) continue;
    const key = JSON.stringify([prof.image, prof.images]);
    if (!seen.has(key)) seen.set(key, prof);
  }
  // Route-limited variants too (Bedrock's byte limits).
  const bedrock = resolveProfile('us.anthropic.claude-opus-4-7-v1:0').profile;
  seen.set('bedrock', bedrock);
  return [...seen.values()];
}

const SEARCH_LIMIT = 3000;

function acceptable(
  prof: Profile,
  w: number,
  h: number,
  detail: string | undefined,
  n: number,
): number | undefined {
  const opts = detail === undefined ? {} : { detail };
  const cost = unresizedCost(prof, w, h, opts);
  if (!cost) return undefined;
  const many = prof.images.manyImages;
  if (many && n > many.above && Math.max(w, h) > many.maxSide) return undefined;
  const perImage = Math.min(prof.images.maxBytesPerImage, Math.floor(prof.images.maxBytesPerRequest / n));
  if (pageBytesMax(prof, w, h) > perImage) return undefined;
  if (prof.image.kind === 'openai-patch' && detail !== undefined) {
    const budget = prof.image.details[detail]?.shapeBudget;
    if (budget !== undefined && Math.ceil(w / 32) * Math.ceil(h / 32) > budget) return undefined;
  }
  return cost.tokens;
}

describe('property: best pages are never resized and never beaten', () => {
  const profiles = distinctVisionProfiles();

  it('for every profile, cell, scale and image count', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...profiles),
        fc.constantFrom(...CELL_NAMES),
        fc.integer({ min: 1, max: MAX_SCALE }),
        fc.integer({ min: 1, max: 60 }),
        (prof, cell, scale, count) => {
          const n = Math.min(count, prof.images.maxPerRequest);
          const best = bestPageShape(prof, { cell, scale, imagesInRequest: n });
          const opts = best.detail === undefined ? {} : { detail: best.detail };
          expect(wouldResize(prof, best.width, best.height, { ...opts, imagesInRequest: n })).toBe(false);
          expect(imageTokens(prof, best.width, best.height, opts)).toBe(best.tokens);
          const c = cellSize(cell, scale);
          expect(best.cols).toBe(Math.floor(best.width / c.width));
          expect(best.rows).toBe(Math.floor(best.height / c.height));
          // Exhaustive over columns: the cheapest page with `cols` columns and more characters than the
          // best is the tightest one (cols·cw × rows·ch with the fewest rows that beat it), because every
          // rule's cost and resize test only grow with W and H. It must cost more tokens.
          for (let cols = 2; cols * c.width <= SEARCH_LIMIT; cols++) {
            const rows = Math.max(2, Math.floor(best.charsPerPage / cols) + 1);
            if (rows * c.height > SEARCH_LIMIT) continue;
            const tokens = acceptable(prof, cols * c.width, rows * c.height, best.detail, n);
            if (tokens !== undefined) expect(tokens).toBeGreaterThan(best.tokens);
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it('brute force over an 8-px grid for the default cell', () => {
    for (const prof of profiles) {
      const best = bestPageShape(prof);
      for (let w = 8; w <= SEARCH_LIMIT; w += 8) {
        for (let h = 8; h <= SEARCH_LIMIT; h += 8) {
          const chars = Math.floor(w / 4) * Math.floor(h / 6);
          if (chars <= best.charsPerPage) continue;
          const tokens = acceptable(prof, w, h, best.detail, 1);
          if (tokens !== undefined && tokens <= best.tokens) {
            throw new Error(
              `${prof.family}: ${w}x${h} holds ${chars} chars for ${tokens} tokens, beating ${JSON.stringify(best)}`,
            );
          }
        }
      }
    }
  });
});
