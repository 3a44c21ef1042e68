import { existsSync, readFileSync } from 'node:fs';
import { parseSource, tableFromResults } from '../../bench/legibility/table.js';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_CER,
  LegibilityDataError,
  builtInLegibility,
  measuredCer,
  mergeLegibility,
  readableVariants,
  validateLegibility,
  type LegibilityTable,
} from '../../src/providers/legibility.js';
import {
  bestPageShape,
  legiblePageShape,
  loadProfileFile,
  resolveProfile,
  ProfileDataError,
} from '../../src/providers/index.js';

const m = (cer: number, source = 'test') => ({ cer, chars: 2000, readers: 2, date: '2026-12-01', source });

describe('the built-in legibility table', () => {
  it('is what `legibility table` builds from the committed blind readings, and names its sources', () => {
    const spec = JSON.parse(
      readFileSync(new URL('../../bench/legibility/table-sources.json', import.meta.url), 'utf8'),
    ) as { family: string; sources: string[] };
    const root = new URL('../../', import.meta.url).pathname;
    const sources = spec.sources.map((s) => parseSource(root + s));
    const t = builtInLegibility();
    expect(tableFromResults(sources, spec.family, t).variants).toEqual(t.variants);
    for (const e of t.variants) {
      const m = e.cer['claude']!;
      const files = m.source.startsWith('bench/legibility/results: ')
        ? m.source.slice('bench/legibility/results: '.length).split(', ')
        : [];
      for (const f of files) expect(existsSync(`${root}bench/legibility/results/${f}`), f).toBe(true);
      if (!files.length) expect(m.source).toContain('LEGIBILITY.md');
    }
    expect(measuredCer(t, '6x10', 'gpt')).toBeUndefined();
  });

  it('is the JSON file as shipped, validated', () => {
    const raw = JSON.parse(
      readFileSync(new URL('../../src/providers/legibility.json', import.meta.url), 'utf8'),
    );
    expect(validateLegibility(raw, 'legibility.json').variants).toEqual(builtInLegibility().variants);
  });
});

describe('validateLegibility', () => {
  const ok = { version: 1, variants: [{ variant: '5x8+r1', cer: { claude: m(0.05) } }] };
  const bad = (v: unknown) => () => validateLegibility(v, 'mine.json');

  it('accepts a well-formed table', () => {
    expect(validateLegibility(ok).variants[0]!.cer['claude']!.cer).toBe(0.05);
  });

  it('names the field and what was expected for bad data', () => {
    expect(bad([])).toThrow(LegibilityDataError);
    expect(bad({ variants: {} })).toThrow(/mine\.json\.variants: expected an array/);
    expect(bad({ variants: [{ variant: '5x8+r1', cer: { claude: { ...m(0.05), cer: 5 } } }] })).toThrow(
      /mine\.json\.variants\[0\]\.cer\.claude\.cer: expected a rate from 0 to 1 .*found 5/,
    );
    expect(
      bad({ variants: [{ variant: '5x8+r1', cer: { claude: { ...m(0.05), date: 'today' } } }] }),
    ).toThrow(/\.date: expected a date YYYY-MM-DD, found "today"/);
    expect(bad({ variants: [{ variant: '5x8+r1', cer: { Claude: m(0.05) } }] })).toThrow(/cer \(key\)/);
    expect(bad({ variants: [{ variant: '5x8+r1', cer: { claude: { ...m(0.05), extra: 1 } } }] })).toThrow(
      /cer\.claude\.extra: unknown field/,
    );
    expect(bad({ variants: [{ variant: '9x9', cer: {} }] })).toThrow(
      /variants\[0\]\.variant: .*unknown cell '9x9'/,
    );
    expect(bad({ variants: [{ variant: '5x8+r1+c1', cer: {} }] })).toThrow(
      /expected the canonical id '5x8\+c1\+r1'/,
    );
    expect(bad({ variants: [{ variant: '5x8+s1', cer: {} }] })).toThrow(/expected the canonical id '5x8'/);
    expect(bad({ variants: [ok.variants[0], ok.variants[0]] })).toThrow(
      /variants\[1\]\.variant: '5x8\+r1' appears twice/,
    );
    expect(bad({ version: 2, variants: [] })).toThrow(/version: expected 1, found 2/);
  });
});

describe('mergeLegibility', () => {
  it('lays later measurements over earlier ones per variant and family', () => {
    const base: LegibilityTable = {
      variants: [
        { variant: '6x10', cer: { claude: m(0.016) } },
        { variant: '5x8', cer: { claude: m(0.093) } },
      ],
    };
    const mine: LegibilityTable = {
      variants: [
        { variant: '6x10', cer: { claude: m(0.004, 'my probe'), gpt: m(0.02) } },
        { variant: '5x8+r1+flow', cer: { gpt: m(0.008) } },
      ],
    };
    const t = mergeLegibility(base, mine);
    expect(measuredCer(t, '6x10', 'claude')!.source).toBe('my probe');
    expect(measuredCer(t, '6x10', 'gpt')!.cer).toBe(0.02);
    expect(measuredCer(t, '5x8', 'claude')!.cer).toBe(0.093);
    expect(t.variants.map((e) => e.variant)).toEqual([...base.variants.map((e) => e.variant), '5x8+r1+flow']);
    // The inputs are left as they were.
    expect(measuredCer(base, '6x10', 'claude')!.cer).toBe(0.016);
  });
});

describe('readableVariants', () => {
  const table: LegibilityTable = {
    variants: [
      { variant: '4x6', cer: { claude: m(0.3) } },
      { variant: '5x8+r1', cer: { claude: m(0.009), gpt: m(0.04) } },
      { variant: '6x10', cer: { claude: m(0.005), gpt: m(0.03) } },
    ],
  };

  it('admits the variants measured within the floor for the family, most legible first', () => {
    const s = readableVariants(table, 'claude');
    expect(s.maxCer).toBe(DEFAULT_MAX_CER);
    expect(s.variants.map((v) => v.variant)).toEqual(['6x10', '5x8+r1']);
    expect(s.fallback).toBeUndefined();
    expect(readableVariants(table, 'claude', 0.5).variants).toHaveLength(3);
  });

  it('falls back to the family’s most legible variant, and says so', () => {
    const s = readableVariants(table, 'gpt', 0.01);
    expect(s.variants.map((v) => [v.variant, v.family])).toEqual([['6x10', 'gpt']]);
    expect(s.fallback).toBe('family');
    expect(s.note).toMatch(
      /no page variant is measured within CER 1\.0% for gpt readers; .*6x10 \(CER 3\.0% for gpt/,
    );
  });

  it('falls back to the most legible variant of any family when the family has none, and says so', () => {
    const s = readableVariants(table, 'gemini');
    expect(s.variants.map((v) => [v.variant, v.family])).toEqual([['6x10', 'claude']]);
    expect(s.fallback).toBe('any-family');
    expect(s.note).toMatch(
      /no legibility measurement for gemini readers; .*any family: 6x10 \(CER 0\.5% for claude/,
    );
    expect(readableVariants(table, undefined).note).toMatch(/names no reader family/);
  });

  it('rejects a bad floor and an empty table', () => {
    expect(() => readableVariants(table, 'claude', 2)).toThrow(/maxCer must be a rate from 0 to 1.*found 2/);
    expect(() => readableVariants(table, 'claude', NaN)).toThrow(RangeError);
    expect(() => readableVariants({ variants: [] }, 'claude')).toThrow(/no measurement/);
  });
});

describe('readerFamily in profiles', () => {
  it('comes from the abstract base profiles of each provider', () => {
    expect(resolveProfile('claude-sonnet-4-5').profile.readerFamily).toBe('claude');
    expect(resolveProfile('claude-opus-4-7').profile.readerFamily).toBe('claude');
    expect(resolveProfile('gpt-5.4').profile.readerFamily).toBe('gpt');
    expect(resolveProfile('gpt-4o').profile.readerFamily).toBe('gpt');
    expect(resolveProfile('gemini-2.5-pro').profile.readerFamily).toBe('gemini');
    expect(resolveProfile('some-unknown-model-x').profile.readerFamily).toBeUndefined();
  });

  it('is validated like the other fields', () => {
    const file = (readerFamily: unknown) => ({
      version: 1,
      profiles: [{ family: 'my-model', extends: 'claude-sonnet-4-5', readerFamily }],
    });
    expect(loadProfileFile(file('gpt'), 'mine.json').profiles[0]!.readerFamily).toBe('gpt');
    expect(() => loadProfileFile(file('Claude Family'), 'mine.json')).toThrow(ProfileDataError);
    expect(() => loadProfileFile(file(3), 'mine.json')).toThrow(
      /readerFamily: expected a non-empty string, found 3/,
    );
  });
});

describe('legiblePageShape', () => {
  const opus = resolveProfile('claude-opus-4-7').profile;
  const gpt = resolveProfile('gpt-5.4').profile;

  it('sizes the page of the variant that carries the most characters per token within the floor', () => {
    const t = builtInLegibility();
    const within = t.variants.filter((e) => (e.cer['claude']?.cer ?? 1) <= DEFAULT_MAX_CER);
    const choice = legiblePageShape(opus);
    expect(within.map((e) => e.variant)).toContain(choice.variant);
    for (const e of within) {
      expect(choice.charsPerToken).toBeGreaterThanOrEqual(
        bestPageShape(opus, { variant: e.variant }).charsPerToken,
      );
    }
    expect(choice).toMatchObject({ width: bestPageShape(opus, { variant: choice.variant }).width });
    expect(choice.legibility).toMatchObject({ family: 'claude', maxCer: DEFAULT_MAX_CER });
    expect(choice.legibility.fallback).toBeUndefined();
  });

  it('takes a looser floor, your own measurements first, and says when it fell back', () => {
    const loose = legiblePageShape(opus, { maxCer: 0.05 });
    expect(loose.charsPerToken).toBeGreaterThan(legiblePageShape(opus).charsPerToken);
    const mine: LegibilityTable = {
      variants: [{ variant: '4x6+r1', cer: { claude: m(0.002, 'my probe') } }],
    };
    expect(legiblePageShape(opus, { legibility: mine })).toMatchObject({
      variant: '4x6+r1',
      legibility: { cer: 0.002, source: 'my probe' },
    });
    const other = legiblePageShape(gpt);
    expect(other.legibility).toMatchObject({ fallback: 'any-family', family: 'claude' });
    expect(other.legibility.note).toMatch(/no legibility measurement for gpt readers/);
    expect(() => legiblePageShape(opus, { maxCer: 2 })).toThrow(/maxCer must be a rate from 0 to 1/);
  });
});
