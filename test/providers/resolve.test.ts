import { afterEach, describe, expect, it } from 'vitest';
import {
  ProfileDataError,
  getReference,
  listProfiles,
  loadProfileFile,
  normalizeModelId,
  registerProfiles,
  resetProfiles,
  resolveProfile,
  uncitedFigures,
} from '../../src/providers/index.js';

const MB = 1024 * 1024;

afterEach(() => resetProfiles());

describe('route shapes from the gateway table', () => {
  const cases: [string, string, string, string][] = [
    // id, route, normalised id, family
    ['claude-opus-4-7', 'anthropic', 'claude-opus-4-7', 'claude-opus-4-7'],
    ['claude-haiku-4-5-20251001', 'anthropic', 'claude-haiku-4-5', 'claude-haiku-4-5'],
    ['anthropic.claude-haiku-4-5-20251001-v1:0', 'bedrock', 'claude-haiku-4-5', 'claude-haiku-4-5'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'bedrock', 'claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['eu.anthropic.claude-opus-4-7', 'bedrock', 'claude-opus-4-7', 'claude-opus-4-7'],
    ['apac.anthropic.claude-sonnet-4-6', 'bedrock', 'claude-sonnet-4-6', 'claude-sonnet-4-6'],
    ['au.anthropic.claude-haiku-4-5-20251001-v1:0', 'bedrock', 'claude-haiku-4-5', 'claude-haiku-4-5'],
    ['jp.anthropic.claude-haiku-4-5-20251001-v1:0', 'bedrock', 'claude-haiku-4-5', 'claude-haiku-4-5'],
    ['global.anthropic.claude-opus-4-8-v1', 'bedrock', 'claude-opus-4-8', 'claude-opus-4-8'],
    [
      'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-haiku-4-5-20251001-v1:0',
      'bedrock',
      'claude-haiku-4-5',
      'claude-haiku-4-5',
    ],
    [
      'arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
      'bedrock',
      'claude-sonnet-4-5',
      'claude-sonnet-4-5',
    ],
    ['claude-sonnet-4-5@20250929', 'vertex', 'claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['claude-haiku-4-5@20251001', 'vertex', 'claude-haiku-4-5', 'claude-haiku-4-5'],
    [
      'projects/p/locations/global/publishers/anthropic/models/claude-opus-4-7',
      'vertex',
      'claude-opus-4-7',
      'claude-opus-4-7',
    ],
    ['anthropic/claude-sonnet-4.5', 'openrouter', 'claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['anthropic/claude-sonnet-4.5:beta', 'openrouter', 'claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['openai/gpt-5.5:free', 'openrouter', 'gpt-5-5', 'gpt-5-5'],
    ['openrouter/anthropic/claude-opus-4.7', 'openrouter', 'claude-opus-4-7', 'claude-opus-4-7'],
    ['vercel/anthropic/claude-opus-4.7', 'vercel', 'claude-opus-4-7', 'claude-opus-4-7'],
    ['gpt-4o-2024-08-06', 'openai', 'gpt-4o', 'gpt-4o'],
    ['gpt-4.1-mini-2025-04-14', 'openai', 'gpt-4-1-mini', 'gpt-4-1-mini'],
    ['gpt-5.4-mini', 'openai', 'gpt-5-4-mini', 'gpt-5-4-mini'],
    ['gpt-5.6-sol', 'openai', 'gpt-5-6-sol', 'gpt-5-6'],
    ['o3-mini', 'openai', 'o3-mini', 'o3-mini'],
    ['o3-pro', 'openai', 'o3-pro', 'o3'],
    ['gemini-2.5-flash-lite', 'gemini', 'gemini-2-5-flash-lite', 'gemini-2-5-flash-lite'],
    ['models/gemini-2.5-pro', 'gemini', 'gemini-2-5-pro', 'gemini-2-5-pro'],
    ['gemini-3-pro-preview', 'gemini', 'gemini-3-pro-preview', 'gemini-3-pro'],
    ['google/gemini-3.1-pro', 'openrouter', 'gemini-3-1-pro', 'gemini-3-1-pro'],
  ];
  it.each(cases)('%s → %s %s (%s)', (id, route, normalizedId, family) => {
    const r = resolveProfile(id);
    expect(r).toMatchObject({ id, route, normalizedId, guessed: false });
    expect(r.profile.family).toBe(family);
  });

  it('Vercel ids look like OpenRouter ids: the choice is noted and can be forced', () => {
    const r = resolveProfile('anthropic/claude-opus-4.7');
    expect(r.route).toBe('openrouter');
    expect(r.note).toMatch(/Vercel AI Gateway.*route: 'vercel'/);
    const v = resolveProfile('anthropic/claude-opus-4.7', { route: 'vercel' });
    expect(v.route).toBe('vercel');
    expect(v.note).toBeUndefined();
    expect(resolveProfile('claude-opus-4-7', { route: 'vertex' }).profile.images.maxBytesPerImage).toBe(
      5 * MB,
    );
  });

  it('applies the route’s limits: 5 MB per image on Bedrock and Vertex, 20 MB Bedrock payload', () => {
    expect(resolveProfile('claude-opus-4-7').profile.images).toMatchObject({
      maxBytesPerImage: 10 * MB,
      maxBytesPerRequest: 32 * MB,
    });
    expect(resolveProfile('us.anthropic.claude-opus-4-7').profile.images).toMatchObject({
      maxBytesPerImage: 5 * MB,
      maxBytesPerRequest: 20 * MB,
    });
    expect(resolveProfile('claude-sonnet-4-5@20250929').profile.images).toMatchObject({
      maxBytesPerImage: 5 * MB,
      maxBytesPerRequest: 32 * MB,
    });
    // Vertex's Claude limit is not applied to Gemini on Vertex.
    const g = resolveProfile('projects/p/locations/us/publishers/google/models/gemini-2.5-pro');
    expect(g.route).toBe('vertex');
    expect(g.profile.images.maxBytesPerImage).toBe(100 * MB);
  });

  it('OpenRouter’s gateway rule is a separate, overridable profile', () => {
    const upstream = resolveProfile('anthropic/claude-sonnet-4.5').profile;
    expect(upstream.image.kind).toBe('anthropic-patch');
    expect(upstream.notes.join(' ')).toMatch(/flat per-image price/);
    registerProfiles({
      routes: [
        {
          route: 'openrouter',
          image: {
            anthropic: {
              kind: 'flat',
              details: { default: 1600 },
              defaultDetail: 'default',
              pageDetails: ['default'],
              pageMaxSide: 1568,
              verified: false,
            },
          },
          notes: ['flat price per image on OpenRouter'],
        },
      ],
    });
    const flat = resolveProfile('anthropic/claude-sonnet-4.5').profile;
    expect(flat.image.kind).toBe('flat');
    expect(resolveProfile('claude-sonnet-4-5').profile.image.kind).toBe('anthropic-patch');
  });
});

describe('unknown and bad ids', () => {
  it('unknown ids get the most conservative profile and say it was guessed', () => {
    const r = resolveProfile('acme-llm-7b');
    expect(r.guessed).toBe(true);
    expect(r.route).toBe('unknown');
    expect(r.note).toMatch(/unknown model 'acme-llm-7b'.*most conservative/);
    const all = listProfiles();
    expect(r.profile.vision).toBe(false);
    expect(r.profile.contextWindow).toBe(Math.min(...all.map((x) => x.contextWindow)));
    expect(r.profile.maxOutput).toBe(Math.min(...all.map((x) => x.maxOutput)));
    expect(r.profile.images.maxBytesPerImage).toBe(Math.min(...all.map((x) => x.images.maxBytesPerImage)));
  });

  it('ids that only match a vendor family are guessed too', () => {
    const r = resolveProfile('claude-opus-9');
    expect(r).toMatchObject({ guessed: true, route: 'anthropic' });
    expect(r.profile.family).toBe('claude');
    expect(r.note).toMatch(/generic 'claude'/);
    expect(resolveProfile('gpt-7').profile.family).toBe('gpt');
  });

  it('does not match a family in the middle of a version (gpt-5 ≠ gpt-50)', () => {
    expect(resolveProfile('gpt-50').profile.family).toBe('gpt');
  });

  it('rejects empty ids and malformed ARNs', () => {
    expect(() => resolveProfile('')).toThrow(/model id is empty/);
    expect(() => resolveProfile('   ')).toThrow(/model id is empty/);
    expect(() => normalizeModelId('arn:aws:s3:::bucket')).toThrow(/unrecognised ARN/);
    expect(() => resolveProfile(undefined as unknown as string)).toThrow(/must be a string/);
  });
});

describe('profile data', () => {
  it('every built-in figure has a source with a date', () => {
    for (const prof of listProfiles()) {
      expect(uncitedFigures(prof), prof.family).toEqual([]);
      for (const s of [...prof.sources, ...prof.alternatives]) {
        expect(getReference(s.ref)?.date, `${prof.family} → ${s.ref}`).toMatch(/^\d{4}-\d{2}/);
      }
    }
  });

  it('carries cache prices per provider', () => {
    expect(resolveProfile('claude-opus-4-7').profile.cache).toEqual({
      writeMultiplier: 1.25,
      writeMultiplier1h: 2,
      readMultiplier: 0.1,
      maxBreakpoints: 4,
    });
    expect(resolveProfile('gpt-4o').profile.cache).toEqual({
      writeMultiplier: 1,
      readMultiplier: 0.5,
      minTokens: 1024,
    });
    expect(resolveProfile('gpt-5.5').profile.cache).toMatchObject({
      writeMultiplier: 1,
      readMultiplier: 0.1,
    });
    expect(resolveProfile('gpt-5.6').profile.cache).toMatchObject({
      writeMultiplier: 1.25,
      readMultiplier: 0.1,
    });
    expect(resolveProfile('gemini-2.5-pro').profile.cache).toMatchObject({
      writeMultiplier: 1,
      readMultiplier: 0.1,
    });
  });

  it('has at least one model without vision, and both Anthropic tiers', () => {
    expect(listProfiles().filter((x) => !x.vision).length).toBeGreaterThan(0);
    const edges = new Set(
      listProfiles().flatMap((x) => (x.image.kind === 'anthropic-patch' ? [x.image.maxLongEdge] : [])),
    );
    expect([...edges].sort()).toEqual([1568, 2576]);
  });

  it('users add and override profiles from a parsed JSON file', () => {
    registerProfiles({
      version: 1,
      references: { mine: { title: 'our measurements', date: '2026-11-29' } },
      profiles: [
        { family: 'claude-opus-4-7', extends: 'claude-opus-4-7', contextWindow: 500000 },
        {
          family: 'acme-vision',
          extends: 'gpt-4o',
          name: 'Acme Vision',
          sources: [{ fields: ['contextWindow'], ref: 'mine' }],
        },
      ],
    });
    expect(resolveProfile('claude-opus-4-7').profile.contextWindow).toBe(500000);
    const acme = resolveProfile('acme-vision-2');
    expect(acme).toMatchObject({ guessed: false });
    expect(acme.profile).toMatchObject({ name: 'Acme Vision', provider: 'openai', family: 'acme-vision' });
    resetProfiles();
    expect(resolveProfile('claude-opus-4-7').profile.contextWindow).toBe(1000000);
  });

  it('or for one call, through an option', () => {
    const extra = { profiles: [{ family: 'acme-vision', extends: 'gemini-2-5-pro', maxOutput: 1000 }] };
    expect(resolveProfile('acme-vision', { profiles: extra }).profile.maxOutput).toBe(1000);
    expect(resolveProfile('acme-vision').guessed).toBe(true);
  });

  it('validates user files with errors naming the field', () => {
    const bad = (json: unknown) => () => loadProfileFile(json, 'my.json');
    expect(bad([])).toThrow(/my.json: expected an object/);
    expect(bad({ profile: [] })).toThrow(/my.json.profile: unknown field/);
    expect(bad({ profiles: [{ family: 'x', extends: 'nope' }] })).toThrow(
      /my.json.profiles\[0\] 'x'.extends: no family 'nope'/,
    );
    expect(bad({ profiles: [{ family: 'x', extends: 'gpt-4o', contextWindow: -5 }] })).toThrow(
      /profiles\[0\] 'x'.contextWindow: expected a positive integer, found -5/,
    );
    expect(bad({ profiles: [{ family: 'x', extends: 'gpt-4o', contextWindw: 5 }] })).toThrow(
      /'x'.contextWindw: unknown field/,
    );
    expect(bad({ profiles: [{ family: 'x', extends: 'gpt-4o', maxOutput: 10_000_000 }] })).toThrow(
      /maxOutput: expected at most contextWindow/,
    );
    expect(bad({ profiles: [{ family: 'Bad.Name', extends: 'gpt-4o' }] })).toThrow(
      /family: expected a normalised id/,
    );
    expect(bad({ profiles: [{ family: 'x', extends: 'gpt-5-4', image: { multiplier: 0 } }] })).toThrow(
      /'x'.image.multiplier: expected a positive number, found 0/,
    );
    expect(bad({ profiles: [{ family: 'x', extends: 'gpt-4o', provider: 'acme' }] })).toThrow(
      /provider: expected one of anthropic, openai, gemini, found "acme"/,
    );
    expect(bad({ profiles: [{ family: 'x', extends: 'gpt-4o', overflowPatterns: ['(unclosed'] }] })).toThrow(
      /overflowPatterns\[0\]: not a valid regular expression/,
    );
    expect(
      bad({
        profiles: [{ family: 'x', extends: 'gpt-4o', sources: [{ fields: ['image'], ref: 'nowhere' }] }],
      }),
    ).toThrow(/sources\[\d+\].ref: expected a key of references.*found "nowhere"/);
    expect(bad({ references: { r: { title: 't', date: 'Nov 2026' } } })).toThrow(
      /references.r.date: expected a date/,
    );
    expect(bad({ routes: [{ route: 'mars' }] })).toThrow(/routes\[0\].route: expected one of/);
    expect(bad({ version: 2 })).toThrow(/version: expected 1, found 2/);
    try {
      loadProfileFile({ profiles: [{ family: 'x', extends: 'gpt-4o', vision: 'yes' }] }, 'my.json');
    } catch (err) {
      expect(err).toBeInstanceOf(ProfileDataError);
      expect((err as ProfileDataError).path).toBe("my.json.profiles[0] 'x'.vision");
    }
    // A failed load leaves the registry as it was.
    expect(() =>
      registerProfiles({ profiles: [{ family: 'gpt-4o', extends: 'gpt-4o', vision: 1 }] }),
    ).toThrow();
    expect(resolveProfile('gpt-4o').profile.vision).toBe(true);
  });
});
