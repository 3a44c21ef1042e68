import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bestPageShape,
  detailLevels,
  listProfiles,
  registerProfiles,
  resetProfiles,
  resolveProfile,
  unresizedCost,
  type Profile,
} from '../../src/providers/index.js';
import { unresizedTokensFn } from '../../src/providers/image-tokens.js';
import { validateBuiltInProfiles } from '../../src/providers/registry.js';

afterEach(() => resetProfiles());

describe('built-in tables (validated here, lazily at run time)', () => {
  it('every shipped profile validates, and lazy validation gives the same profiles', () => {
    const eager = validateBuiltInProfiles();
    expect(eager.length).toBeGreaterThan(20);
    const lazy = listProfiles();
    expect(lazy.map((p) => p.family)).toEqual(eager.map((p) => p.family));
    expect(lazy).toEqual(eager);
  });

  it('user data is still validated when registered, naming the field', () => {
    expect(() =>
      registerProfiles({ profiles: [{ family: 'acme', extends: 'gpt-4o', contextWindow: -1 }] }, 'acme.json'),
    ).toThrow(/acme.json.profiles\[0\] 'acme'.contextWindow: expected a positive integer, found -1/);
  });
});

describe('resolveProfile returns stable profile objects', () => {
  it('for direct, routed and unknown ids', () => {
    for (const id of [
      'claude-sonnet-4-6',
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      'anthropic/claude-sonnet-4.5',
      'gpt-5.5',
      'no-such-model-7',
    ]) {
      const a = resolveProfile(id);
      const b = resolveProfile(id);
      expect(b.profile).toBe(a.profile);
      expect(b).toEqual(a);
      // The wrapper is the caller's own.
      expect(b).not.toBe(a);
    }
  });

  it('and fresh ones after a registration or reset', () => {
    const before = resolveProfile('us.anthropic.claude-opus-4-7-v1:0').profile;
    registerProfiles({ routes: [{ route: 'bedrock', maxBytesPerImage: 1024 * 1024, notes: ['tighter'] }] });
    const after = resolveProfile('us.anthropic.claude-opus-4-7-v1:0').profile;
    expect(after).not.toBe(before);
    expect(after.images.maxBytesPerImage).toBe(1024 * 1024);
    resetProfiles();
    const reset = resolveProfile('us.anthropic.claude-opus-4-7-v1:0').profile;
    expect(reset).not.toBe(after);
    expect(reset).toEqual(before);
  });
});

/** One profile per distinct image rule, plus a routed one. */
function visionProfiles(): Profile[] {
  const seen = new Map<string, Profile>();
  for (const p of listProfiles()) if (p.vision) seen.set(JSON.stringify([p.image, p.images]), p);
  seen.set('bedrock', resolveProfile('us.anthropic.claude-opus-4-7-v1:0').profile);
  return [...seen.values()];
}

describe('the page search’s fast cost agrees with the image rules', () => {
  it('unresizedTokensFn = unresizedCost for every rule, level and size', () => {
    const profiles = visionProfiles();
    fc.assert(
      fc.property(
        fc.constantFrom(...profiles),
        fc.nat(),
        fc.integer({ min: 1, max: 7000 }),
        fc.integer({ min: 1, max: 7000 }),
        (prof, pick, w, h) => {
          const levels: (string | undefined)[] = [undefined, ...detailLevels(prof)];
          const detail = levels[pick % levels.length];
          const opts = detail === undefined ? {} : { detail };
          const expected = unresizedCost(prof, w, h, opts)?.tokens ?? -1;
          expect(unresizedTokensFn(prof, opts)(w, h)).toBe(expected);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('image counts that agree on the many-image rule and byte share share one answer', () => {
    const opus = resolveProfile('claude-opus-4-7').profile;
    const few = bestPageShape(opus, { imagesInRequest: 2 });
    expect(bestPageShape(opus, { imagesInRequest: 20 })).toEqual(few);
    const many = bestPageShape(opus, { imagesInRequest: 21 });
    expect(many).not.toEqual(few);
    expect(bestPageShape(opus, { imagesInRequest: 22 })).toEqual(many);
    // Bedrock's 20 MB payload: the byte share changes the answer at large counts.
    const bedrock = resolveProfile('us.anthropic.claude-opus-4-7-v1:0').profile;
    expect(bestPageShape(bedrock, { imagesInRequest: 100 }).bytesMax * 100).toBeLessThanOrEqual(
      bedrock.images.maxBytesPerRequest,
    );
  });
});
