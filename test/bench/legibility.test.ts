import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { align } from '../../bench/legibility/align.js';
import {
  CONTENT_KINDS,
  MAX_LINE,
  NEEDLE_KINDS,
  generateText,
  generateTexts,
  kindsOf,
} from '../../bench/legibility/generate.js';
import { makeKit, type KitKey } from '../../bench/legibility/kit.js';
import {
  claudeTokens,
  density,
  densityMarkdown,
  openaiTokens,
  price,
  realText,
} from '../../bench/legibility/report.js';
import { joinParts, rescore, scoreImage, scoreKit, type Results } from '../../bench/legibility/score.js';
import { FLOW_MAX_WIDTH, benchVariant, variantRows } from '../../bench/legibility/variant.js';
import { parseSource, tableFromResults } from '../../bench/legibility/table.js';
import { editDistance } from '../../src/probe/score.js';
import { countPages, decode, normalize } from '../../src/render/index.js';

describe('legibility generator', () => {
  it('is deterministic and different per seed and index', () => {
    expect(generateText(7, 0)).toEqual(generateText(7, 0));
    expect(generateText(7, 0).text).not.toBe(generateText(8, 0).text);
    expect(generateText(7, 0).text).not.toBe(generateText(7, 1).text);
  });

  it('every text: 2,000+ chars, lines ≤ 84, every kind, 10+ needles of every needle kind at their offsets', () => {
    for (const t of generateTexts(3, 8)) {
      const cps = [...t.text];
      expect(cps.length).toBeGreaterThanOrEqual(2000);
      expect(cps.length).toBeLessThanOrEqual(2600);
      expect(normalize(t.text)).toBe(t.text);
      for (const line of t.text.split('\n')) expect([...line].length).toBeLessThanOrEqual(MAX_LINE);
      for (const k of CONTENT_KINDS) expect(t.segments.some((s) => s.kind === k)).toBe(true);
      // Segments tile the text.
      expect(kindsOf(t)).toHaveLength(cps.length);
      expect(t.needles.length).toBeGreaterThanOrEqual(10);
      for (const k of NEEDLE_KINDS) expect(t.needles.some((n) => n.kind === k)).toBe(true);
      for (const n of t.needles) expect(cps.slice(n.at, n.at + [...n.value].length).join('')).toBe(n.value);
    }
  });
});

describe('alignment', () => {
  it('gives the Levenshtein distance and charges every edit to one source character', () => {
    const cases: [string, string][] = [
      ['kitten', 'sitting'],
      ['flaw', 'lawn'],
      ['abc', ''],
      ['abc', 'xxabcxx'],
      ['a\nb\nc', 'a b\nc'],
    ];
    for (const [s, t] of cases) {
      const a = align([...s], [...t]);
      expect(a.distance).toBe(editDistance(s, t));
      expect(a.edits.reduce((x, y) => x + y, 0)).toBe(a.distance);
    }
  });

  it('charges an insertion to the source character before it (the first one at the start)', () => {
    expect([...align([...'ab'], [...'axb']).edits]).toEqual([1, 0]);
    expect([...align([...'ab'], [...'xab']).edits]).toEqual([1, 0]);
    expect([...align([...'ab'], [...'abx']).edits]).toEqual([0, 1]);
    expect([...align([...'abc'], [...'aZc']).edits]).toEqual([0, 1, 0]);
    expect([...align([...'abc'], [...'ac']).edits]).toEqual([0, 1, 0]);
  });

  it('aligns 2,600 × 2,600 characters', () => {
    const s = [...generateText(1, 0).text];
    const t = s.map((c, i) => (i % 50 === 0 ? '?' : c));
    expect(align(s, t).distance).toBe(Math.ceil(s.length / 50));
  });
});

describe('scoring', () => {
  const t = generateText(5, 0);
  const kinds = kindsOf(t);

  it('a perfect transcription scores CER 0, every line exact, every needle found', () => {
    const s = scoreImage(t, t.text + '\n');
    expect(s.distance).toBe(0);
    expect(s.cer).toBe(0);
    expect(s.lines.exact).toBe(s.lines.total);
    for (const k of NEEDLE_KINDS) expect(s.needles[k].found).toBe(s.needles[k].total);
  });

  it('3 substitutions in the kernel segment: exact CER, all charged to kernel, the hit needle missed', () => {
    const mac = t.needles.find((n) => n.kind === 'hex' && /^([0-9a-f]{2}:){5}/.test(n.value))!;
    expect(kinds[mac.at]).toBe('kernel');
    const cps = [...t.text];
    // Three different characters in the MAC: each a substitution by a character not there.
    for (const off of [0, 3, 6]) cps[mac.at + off] = cps[mac.at + off] === 'Z' ? 'Y' : 'Z';
    const s = scoreImage(t, cps.join(''));
    expect(s.distance).toBe(3);
    expect(s.cer).toBeCloseTo(3 / [...t.text].length, 12);
    expect(s.byKind.kernel.edits).toBe(3);
    for (const k of CONTENT_KINDS) if (k !== 'kernel') expect(s.byKind[k].edits).toBe(0);
    expect(s.lines.exact).toBe(s.lines.total - 1);
    expect(s.missed).toEqual([mac.value]);
    expect(s.needles.hex.found).toBe(s.needles.hex.total - 1);
  });

  it('a deleted line and an inserted word are charged to their kinds', () => {
    const seg = t.segments.find((x) => x.kind === 'json')!;
    const cps = [...t.text];
    const firstLineEnd = cps.indexOf('\n', seg.start);
    // Delete the json segment's first line (with its newline) and insert "xyz" in a prose line.
    const prose = t.segments.find((x) => x.kind === 'prose')!;
    const edited = [...cps];
    edited.splice(prose.start + 2, 0, 'x', 'y', 'z');
    const shift = seg.start > prose.start ? 3 : 0;
    edited.splice(seg.start + shift, firstLineEnd - seg.start + 1);
    const s = scoreImage(t, edited.join(''));
    expect(s.distance).toBe(firstLineEnd - seg.start + 1 + 3);
    expect(s.byKind.json.edits).toBe(firstLineEnd - seg.start + 1);
    expect(s.byKind.prose.edits).toBe(3);
  });

  it('a missing answer is 100% error and finds no needle', () => {
    const s = scoreImage(t, undefined);
    expect(s.missing).toBe(true);
    expect(s.cer).toBe(1);
    expect(s.lines.exact).toBe(0);
    expect(s.missed).toHaveLength(t.needles.length);
  });

  it('joins parts: lines with a newline, flow with nothing; one trailing newline per part dropped', () => {
    expect(joinParts(['a\nb\n', 'c\r\n'], 'lines')).toBe('a\nb\nc');
    expect(joinParts(['abc\n', 'def'], 'flow')).toBe('abcdef');
  });
});

describe('kit', () => {
  let dir: string;
  let key: KitKey;
  const variants = ['4x6+r1+flow', '6x10+s2'];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'glyphfold-legibility-'));
    key = await makeKit({ variants, readers: 2, seed: 11, out: dir });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is a Latin square: each reader reads every text once and every variant once', () => {
    expect(key.texts).toHaveLength(variants.length);
    for (let reader = 1; reader <= 2; reader++) {
      const mine = key.images.filter((i) => i.reader === reader);
      expect(mine.map((i) => i.text).sort()).toEqual(key.texts.map((t) => t.id).sort());
      expect(mine.map((i) => i.variant).sort()).toEqual([...variants].sort());
    }
    // Each text is read in each variant by someone.
    for (const t of key.texts) {
      expect(new Set(key.images.filter((i) => i.text === t.id).map((i) => i.variant)).size).toBe(
        variants.length,
      );
    }
  });

  it('hands each reader a balanced share of the square with perReader', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'glyphfold-legibility-share-'));
    try {
      const ids = ['4x6+flow', '5x8+flow', '6x10+flow', '6x9+flow'];
      const k = await makeKit({ variants: ids, readers: 4, seed: 5, out: fresh, perReader: 2 });
      for (let reader = 1; reader <= 4; reader++) {
        const mine = k.images.filter((i) => i.reader === reader);
        expect(mine).toHaveLength(2);
        expect(new Set(mine.map((i) => i.variant)).size).toBe(2);
        expect(new Set(mine.map((i) => i.text)).size).toBe(2);
      }
      // Every variant is read twice, never twice by one reader; every text by two readers, in two variants.
      for (const v of ids) expect(k.images.filter((i) => i.variant === v)).toHaveLength(2);
      for (const t of k.texts) {
        const readings = k.images.filter((i) => i.text === t.id);
        expect(readings).toHaveLength(2);
        expect(new Set(readings.map((i) => i.variant)).size).toBe(2);
      }
      await expect(
        makeKit({ variants: ids, readers: 1, seed: 5, out: join(fresh, 'x'), perReader: 3 }),
      ).rejects.toThrow(/perReader must divide the 4 variants, found 3/);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('reader folders hold only PNGs and INSTRUCTIONS.md, with neutral names and identical instructions', () => {
    const all = readdirSync(dir).sort();
    expect(all).toEqual(['key.json', 'reader-1', 'reader-2', 'texts']);
    const instructions = new Set<string>();
    for (const r of ['reader-1', 'reader-2']) {
      const files = readdirSync(join(dir, r));
      for (const f of files) {
        if (f === 'INSTRUCTIONS.md') continue;
        expect(f).toMatch(/^[a-z][a-z0-9]{5}(-[a-z])?\.png$/);
        for (const secret of [...key.texts.map((t) => t.id), ...variants, ...CONTENT_KINDS]) {
          expect(f.replace(/\.png$/, '')).not.toContain(secret);
        }
      }
      expect(files).toContain('INSTRUCTIONS.md');
      instructions.add(readFileSync(join(dir, r, 'INSTRUCTIONS.md'), 'utf8'));
    }
    expect(instructions.size).toBe(1);
    const names = key.images.map((i) => i.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('pages are lossless: decoding every image gives the source; heights fit, tall ones are split', () => {
    for (const im of key.images) {
      const v = benchVariant(im.variant);
      const pngs = im.parts.map((p) => new Uint8Array(readFileSync(join(dir, `reader-${im.reader}`, p))));
      const source = key.texts.find((t) => t.id === im.text)!.text;
      expect(decode(pngs, { variant: v.variant })).toBe(normalize(source));
      expect(im.width).toBe(v.cols * v.pitch.width);
      expect(
        v.layout === 'flow'
          ? v.cols * v.pitch.width <= FLOW_MAX_WIDTH && (v.cols + 1) * v.pitch.width > FLOW_MAX_WIDTH
          : v.cols === 84,
      ).toBe(true);
      for (const h of im.heights) expect(h).toBeLessThanOrEqual(1000);
      // The flow page fits in one part exactly as tall as its rows; 6x10 at scale 2 is split.
      if (v.layout === 'flow') expect(im.heights).toEqual([variantRows(source, v) * v.pitch.height]);
      else expect(im.parts.length).toBeGreaterThan(1);
    }
  });

  it('refuses a non-empty directory and a bad variant id, naming what was wrong', async () => {
    await expect(makeKit({ variants, readers: 1, seed: 1, out: dir })).rejects.toThrow(/not empty/);
    const fresh = mkdtempSync(join(tmpdir(), 'glyphfold-legibility-'));
    try {
      await expect(makeKit({ variants: ['6x10+q3'], readers: 1, seed: 1, out: fresh })).rejects.toThrow(/q3/);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('scores a kit: perfect, planted and missing transcriptions; rescoring reproduces the scores', () => {
    const [perfect, typo, ...rest] = key.images;
    const text = (id: string) => key.texts.find((t) => t.id === id)!.text;
    const lines = (s: string) => s.split('\n');
    const writeParts = (im: typeof perfect, body: string) => {
      const all = lines(body);
      const per = Math.ceil(all.length / im!.parts.length);
      im!.parts.forEach((p, i) =>
        writeFileSync(
          join(dir, `reader-${im!.reader}`, p.replace(/\.png$/, '.txt')),
          all.slice(i * per, (i + 1) * per).join('\n') + '\n',
        ),
      );
    };
    writeParts(perfect, text(perfect!.text));
    // Two substitutions in the second image, written in its parts.
    const src = [...text(typo!.text)];
    src[10] = src[10] === '#' ? '%' : '#';
    src[20] = src[20] === '#' ? '%' : '#';
    writeParts(typo, src.join(''));
    const results = scoreKit(dir, {
      model: 'test-reader',
      how: 'written by the test',
      date: '2026-11-30T00:00:00Z',
    });
    const byName = new Map(results.images.map((i) => [i.name, i]));
    expect(byName.get(perfect!.name)!.score.cer).toBe(0);
    expect(byName.get(typo!.name)!.score.distance).toBe(2);
    for (const im of rest) expect(byName.get(im.name)!.score).toMatchObject({ missing: true, cer: 1 });
    expect(results.reader.model).toBe('test-reader');
    expect(results.kit).toEqual({ seed: 11, variants, readers: 2 });
    const totalChars = results.images.reduce((n, i) => n + i.score.chars, 0);
    expect(results.aggregates.all.distance).toBe(2 + rest.reduce((n, i) => n + [...text(i.text)].length, 0));
    expect(results.aggregates.all.chars).toBe(totalChars);
    const again = rescore(JSON.parse(JSON.stringify(results)));
    expect(again.images.map((i) => i.score)).toEqual(results.images.map((i) => i.score));
    expect(again.aggregates).toEqual(results.aggregates);
  });
});

describe('report price', () => {
  it('patch counts and rows match the renderer', () => {
    expect(claudeTokens(504, 660)).toBe(18 * 24);
    expect(openaiTokens(504, 660)).toBe(Math.ceil(16 * 21 * 1.2));
    const text = realText();
    const v = benchVariant('6x10');
    const rows = variantRows(text, v);
    // One page exactly `rows` tall holds it all; one row less does not.
    const shape = (r: number) => ({ width: 84 * 6, height: r * 10 });
    const head = text.split('\n').slice(0, 300).join('\n');
    const headRows = variantRows(head, v);
    expect(countPages(head, { shape: shape(headRows), cell: '6x10' }).pages).toBe(1);
    expect(countPages(head, { shape: shape(headRows - 1), cell: '6x10' }).pages).toBe(2);
    const p = price('6x10', text);
    expect(p.chars).toBe([...text].length);
    expect(p.fill).toBeCloseTo(p.chars / (rows * 84), 12);
    expect(p.claudePer1k).toBeGreaterThan(0);
  });
});

describe('density', () => {
  it('pools readings by characters per Claude image token of the pages read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'glyphfold-legibility-density-'));
    try {
      const real = readdirSync(join(import.meta.dirname, '../../bench/legibility/results'))
        .filter((f) => f.endsWith('.json'))
        .sort()[0]!;
      const r = JSON.parse(
        readFileSync(join(import.meta.dirname, '../../bench/legibility/results', real), 'utf8'),
      ) as Results;
      const [a, b] = r.images.filter((im) => !im.score.missing);
      // Two readings of one variant in one file: pooled as one group, whatever their own density.
      const one = {
        ...a!,
        variant: 'x',
        width: 280,
        heights: [280],
        score: { ...a!.score, chars: 500, distance: 5 },
      };
      const two = {
        ...b!,
        variant: 'x',
        width: 280,
        heights: [140, 140],
        score: { ...b!.score, chars: 700, distance: 19 },
      };
      // A second variant far denser: 4,000 chars on one 28×28 patch.
      const dense = {
        ...b!,
        variant: 'y',
        width: 28,
        heights: [28],
        score: { ...b!.score, chars: 4000, distance: 4000 },
      };
      const missing = { ...b!, variant: 'x', score: { ...b!.score, missing: true, chars: 9999 } };
      writeFileSync(join(dir, 'r.json'), JSON.stringify({ ...r, images: [one, two, dense, missing] }));
      const rows = density(dir);
      // x: 1,200 chars on 100 + 2×50 = 200 tokens → 6 per token, band 6–7; y: 4,000 per token.
      expect(rows.map((row) => [row.from, row.readings, row.chars, row.cer])).toEqual([
        [6, 2, 1200, 24 / 1200],
        [15, 1, 4000, 1],
      ]);
      expect(rows[0]!.variants).toEqual(['r#x (6.0)']);
      expect(densityMarkdown(rows).split('\n')[2]).toBe('| 6–7 | 2 | 1200 | 2.0% | 1.5×–1.8× |');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('table', () => {
  it('pools readings per variant, keeps a file to one layout when asked, and validates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glyphfold-legibility-table-'));
    try {
      const variants = ['6x10', '6x10+flow'];
      const key = await makeKit({ variants, readers: 2, seed: 9, out: join(dir, 'kit') });
      // Reader 1 reads perfectly; reader 2 drops the first character of every text.
      for (const im of key.images) {
        const text = key.texts.find((t) => t.id === im.text)!.text;
        const folder = join(dir, 'kit', `reader-${im.reader}`);
        writeFileSync(
          join(folder, im.parts[0]!.replace('.png', '.txt')),
          im.reader === 1 ? text : text.slice(1),
        );
      }
      const results = scoreKit(join(dir, 'kit'), {
        model: 'test',
        how: 'test',
        date: '2026-11-30T12:00:00Z',
      });
      const file = join(dir, 'r.json');
      writeFileSync(file, JSON.stringify(results));
      const all = tableFromResults([parseSource(file)], 'claude');
      for (const v of variants) {
        const m = all.variants.find((e) => e.variant === v)!.cer['claude']!;
        const chars = key.images
          .filter((i) => i.variant === v)
          .reduce((n, i) => n + [...key.texts.find((t) => t.id === i.text)!.text].length, 0);
        expect(m.chars).toBe(chars);
        expect(m.cer).toBeCloseTo(1 / chars, 4); // one edit over both readers' characters
        expect(m.readers).toBe(2);
        expect(m.date).toBe('2026-11-30');
      }
      const lines = tableFromResults([parseSource(`${file}:lines`)], 'claude', {
        variants: [
          {
            variant: '4x6',
            cer: { claude: { cer: 0.3, chars: 100, readers: 1, date: '2026-01-01', source: 'x' } },
          },
        ],
      });
      expect(lines.variants.map((e) => e.variant).sort()).toEqual(['4x6', '6x10']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
