import { describe, expect, it } from 'vitest';
import {
  editDistance,
  grade,
  normalizedDistance,
  parseAnswers,
  scoreAnswers,
} from '../../src/probe/score.js';
import type { Needle } from '../../src/probe/needles.js';

describe('edit distance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('flaw', 'lawn')).toBe(2);
    expect(normalizedDistance('K7Q-2XMP9', 'K7Q-2XMP8')).toBeCloseTo(1 / 9);
    expect(normalizedDistance('', '')).toBe(0);
  });
});

describe('grade', () => {
  it('exact after trimming and one pair of wrapping quotes; case counts', () => {
    expect(grade('K7Q-2XMP9', ' K7Q-2XMP9 ')).toBe('exact');
    expect(grade('K7Q-2XMP9', '`K7Q-2XMP9`')).toBe('exact');
    expect(grade('The amber falcon.', '"The amber falcon."')).toBe('exact');
    expect(grade('parseQuotaTable_k7', 'parsequotatable_k7')).toBe('partial'); // case counts: 2 of 18 wrong
  });
  it('partial up to a normalized edit distance of 0.2, none beyond', () => {
    expect(grade('K7Q-2XMP9A', 'K7Q-2XMP8A')).toBe('partial'); // 1/10
    expect(grade('K7Q-2XMP9A', 'K1Q-2XMP8A')).toBe('partial'); // 2/10
    expect(grade('K7Q-2XMP9A', 'K1Q-ZXMP8A')).toBe('none'); // 3/10
    expect(grade('48213.07', '4821.07')).toBe('partial'); // 1/8
  });
  it('none for ?, empty or missing', () => {
    expect(grade('x', '?')).toBe('none');
    expect(grade('x', '')).toBe('none');
    expect(grade('x', undefined)).toBe('none');
  });
});

describe('parseAnswers', () => {
  it('reads LABEL: value lines, tolerating bullets, bold and fences; first answer wins', () => {
    const reply = '```\nN01: abc\n- N02: 12.5\n**N03**: id_x\nN01: later\nN09: not asked\nnoise\n```';
    const answers = parseAnswers(reply, ['N01', 'N02', 'N03', 'N04']);
    expect(Object.fromEntries(answers)).toEqual({ N01: 'abc', N02: '12.5', N03: 'id_x' });
  });
});

describe('scoreAnswers', () => {
  it('counts exact, partial and none per kind and overall', () => {
    const needles: Needle[] = [
      { label: 'N01', kind: 'code', value: 'ABC-12345', page: 1 },
      { label: 'N02', kind: 'number', value: '48213.07', page: 1 },
      { label: 'N03', kind: 'identifier', value: 'parseQuotaTable_k7', page: 1 },
      { label: 'N04', kind: 'quote', value: 'The amber falcon counts seven quiet lanterns.', page: 1 },
      { label: 'N05', kind: 'code', value: 'XYZ-98765', page: 2 },
    ];
    const reply =
      'N01: ABC-12345\nN02: 48218.07\nN03: ?\nN04: "The amber falcon counts seven quiet lanterns."\nN05: QQQ-11111';
    const r = scoreAnswers(needles, reply);
    expect(r.needles.map((n) => n.grade)).toEqual(['exact', 'partial', 'none', 'exact', 'none']);
    expect(r.byKind.code).toEqual({ exact: 1, partial: 0, none: 1, total: 2 });
    expect(r.byKind.number).toEqual({ exact: 0, partial: 1, none: 0, total: 1 });
    expect(r.byKind.identifier).toEqual({ exact: 0, partial: 0, none: 1, total: 1 });
    expect(r.byKind.quote).toEqual({ exact: 1, partial: 0, none: 0, total: 1 });
    expect(r.overall).toEqual({ exact: 2, partial: 1, none: 2, total: 5 });
  });
});
