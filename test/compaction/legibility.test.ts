/**
 * Snapshot pages chosen by measured legibility (issue 10): the variant admitted by the floor for the
 * model's reader family, the fallbacks and their notes, the user's table over the built-in one, the
 * full variant in the record, and records from before page variants replaying byte for byte.
 */
import { readFileSync } from 'node:fs';
import { importTranscript } from '../../src/transcript/import/index.js';
import { describe, expect, it } from 'vitest';
import { choosePage, lineHistogram, totalRows, type PageCandidate } from '../../src/compaction/page-width.js';
import { pageLegibility, prepareRequest, RENDERER, setupCompaction } from '../../src/compaction/policy.js';
import { rebuildRequest } from '../../src/compaction/record.js';
import { formatReport } from '../../src/compaction/report.js';
import { snapshotHeader, type PageSpec } from '../../src/compaction/snapshot.js';
import { formatItems } from '../../src/compaction/text.js';
import { bestPageShape, resolveProfile } from '../../src/providers/index.js';
import { builtInLegibility, DEFAULT_MAX_CER } from '../../src/providers/legibility.js';
import { decode, layoutRows, normalize, type CellName } from '../../src/render/index.js';
import type { ImageItem, Item } from '../../src/transcript/items.js';
import { Builder } from './builder.js';

/** A coding session: prose, file writes with multi-line contents, logs with numbers. */
function session(turns: number): Builder {
  const b = new Builder();
  b.person('Task: make the scheduler retry failed jobs. Keep the public API.');
  for (let t = 0; t < turns; t++) {
    b.model(`Step ${t}: I will read the job table and then write the retry module for queue ${t}.`);
    const lines = Array.from(
      { length: 40 },
      (_, k) => `  if (job.attempts > ${k}) await sleep(${k * 250}); // backoff step ${k} of queue ${t}`,
    );
    b.tool('Write', { file_path: `src/retry-${t}.ts`, content: lines.join('\n') + '\n' }, 'written');
    const log = Array.from(
      { length: 50 },
      (_, k) =>
        `[${(1000 + t * 50 + k) / 10}s] job ${t}-${k} attempt ${k % 4} state=${k % 3 ? 'ok' : 'retry'}`,
    );
    b.tool('Bash', { command: `npm test -- retry-${t}` }, log.join('\n'));
    b.person(`Looks good, go on with queue ${t + 1}.`);
  }
  b.model('All queues retry now.');
  return b;
}

function appendRecords(path: readonly Item[], records: readonly { kind: 'compaction' }[]): Item[] {
  const out = path.slice();
  for (const r of records) {
    const last = out[out.length - 1]!;
    out.push({ ...r, id: `c${out.length}`, parent: last.id, turn: last.turn, time: last.time } as Item);
  }
  return JSON.parse(JSON.stringify(out)) as Item[];
}

const m = (cer: number, source: string) => ({ cer, chars: 2400, readers: 3, date: '2026-12-01', source });

describe('the page variant, chosen by legibility', () => {
  // Expectations come from the shipped table (bench/legibility results), not from copies of its numbers.
  const claudeRows = builtInLegibility()
    .variants.filter((e) => e.cer['claude'])
    .map((e) => ({ variant: e.variant, ...e.cer['claude']! }));
  const mostLegible = claudeRows.reduce((a, b) => (b.cer < a.cer ? b : a));
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.replace('.', '\\.');

  it('takes the most legible measured variant when none is within the floor, and says so (claude)', async () => {
    const b = session(12);
    const floor = mostLegible.cer / 2; // below every measurement
    const r = await prepareRequest(
      b.items,
      { model: 'claude-sonnet-4-5', budget: { window: 30_000 }, snapshot: { maxCer: floor } },
      true,
    );
    const s = r.report.snapshot!;
    expect(s.variant).toBe(mostLegible.variant);
    expect(s.legibility).toMatchObject({
      cer: mostLegible.cer,
      family: 'claude',
      readerFamily: 'claude',
      fallback: 'family',
      source: mostLegible.source,
    });
    const text = formatReport(r.report);
    expect(text).toMatch(
      new RegExp(`= [\\d.]+× fewer; expected CER ${pct(mostLegible.cer)} \\(claude readers`),
    );
    expect(text).toMatch(
      /snapshot legibility: no page variant is measured within CER 0\.\d% for claude readers/,
    );
  });

  it('takes the cheapest variant measured within the default floor (claude)', async () => {
    const b = session(12);
    const r = await prepareRequest(b.items, { model: 'claude-sonnet-4-5', budget: { window: 30_000 } }, true);
    const s = r.report.snapshot!;
    const admitted = claudeRows.filter((e) => e.cer <= DEFAULT_MAX_CER).map((e) => e.variant);
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted).toContain(s.variant);
    expect(s.legibility.fallback).toBeUndefined();
    expect(s.legibility.cer).toBeLessThanOrEqual(DEFAULT_MAX_CER);
  });

  it('takes the most legible variant of any family when the family has none, and says so (gpt)', async () => {
    const b = session(12);
    const r = await prepareRequest(b.items, { model: 'gpt-5.4', budget: { window: 30_000 } }, true);
    const s = r.report.snapshot!;
    expect(s.variant).toBe(mostLegible.variant);
    expect(s.legibility).toMatchObject({
      cer: mostLegible.cer,
      family: 'claude',
      readerFamily: 'gpt',
      fallback: 'any-family',
    });
    const text = formatReport(r.report);
    expect(text).toMatch(new RegExp(`expected CER ${pct(mostLegible.cer)} \\(measured with claude readers`));
    expect(text).toMatch(
      new RegExp(
        `no legibility measurement for gpt readers; using the most legible variant measured for any family: ${mostLegible.variant.replace('+', '\\+')}`,
      ),
    );
  });

  it('picks the cheapest admissible variant for the text under a looser floor', async () => {
    const b = session(12);
    const options = { model: 'claude-sonnet-4-5', budget: { window: 30_000 }, snapshot: { maxCer: 0.05 } };
    const setup = setupCompaction(options);
    const admitted = [...setup.legibility!.expected.keys()];
    // Every claude measurement within 5%, most legible first.
    expect(admitted).toEqual(
      claudeRows
        .filter((e) => e.cer <= 0.05)
        .sort((x, y) => x.cer - y.cer)
        .map((e) => e.variant),
    );
    // Candidates span every admitted variant, each at several widths.
    const variants = new Set(setup.pages!.map((p) => p.variant));
    expect(variants).toEqual(new Set(admitted));
    const r = await prepareRequest(b.items, options, true);
    const s = r.report.snapshot!;
    expect(admitted).toContain(s.variant);
    expect(s.legibility.fallback).toBeUndefined();
    expect(formatReport(r.report)).not.toMatch(/snapshot legibility:/);
    // No admitted variant, forced, holds this history's imaged text in fewer tokens.
    for (const v of admitted) {
      const forced = await prepareRequest(b.items, { ...options, variant: v }, true);
      const f = forced.report.snapshot!;
      expect(f.variant).toBe(v);
      if (v !== s.variant)
        expect(s.imageTokens / s.chars).toBeLessThanOrEqual((f.imageTokens / f.chars) * 1.02);
    }
  });

  it('lets the user’s own measurements take precedence over the built-in table', async () => {
    const b = session(12);
    const legibility = {
      variants: [
        { variant: '5x8+r1+flow', cer: { claude: m(0.006, 'my probe, run 7') } },
        { variant: '6x10', cer: { gpt: m(0.008, 'my probe, run 8') } },
      ],
    };
    const r = await prepareRequest(
      b.items,
      { model: 'claude-sonnet-4-5', budget: { window: 30_000 }, legibility },
      true,
    );
    const s = r.report.snapshot!;
    expect(s.variant).toBe('5x8+r1+flow');
    expect(s.legibility).toMatchObject({ cer: 0.006, family: 'claude', source: 'my probe, run 7' });
    expect(s.legibility.fallback).toBeUndefined();
    const g = pageLegibility(resolveProfile('gpt-5.4').profile, { model: 'gpt-5.4', legibility });
    expect([...g.expected.keys()]).toEqual(['6x10']);
    expect(g.fallback).toBeUndefined();
    // Bad options are the caller's error, named: a table, a floor, a variant.
    expect(() => setupCompaction({ model: 'gpt-5.4', legibility: { variants: [{ variant: 'x' }] } })).toThrow(
      /options\.legibility\.variants\[0\]\.variant: unknown cell 'x'/,
    );
    expect(() => setupCompaction({ model: 'gpt-5.4', snapshot: { maxCer: 1.5 } })).toThrow(
      /maxCer must be a rate from 0 to 1/,
    );
    expect(() => setupCompaction({ model: 'gpt-5.4', variant: '6x10+z' })).toThrow(/unknown modifier 'z'/);
    // A model without vision needs none of it.
    expect(setupCompaction({ model: 'o3-mini', snapshot: { maxCer: 0.02 } }).page).toBeUndefined();
  });

  it('reports a forced variant with its measured CER, or as unmeasured', async () => {
    const b = session(12);
    const forced = await prepareRequest(
      b.items,
      { model: 'claude-sonnet-4-5', budget: { window: 30_000 }, variant: '4x6' },
      true,
    );
    const four = claudeRows.find((e) => e.variant === '4x6')!;
    expect(forced.report.snapshot!.legibility).toMatchObject({ cer: four.cer, forced: true });
    expect(formatReport(forced.report)).toMatch(
      new RegExp(`expected CER ${pct(four.cer)} \\(claude readers, variant chosen by the caller;`),
    );
    const unmeasured = await prepareRequest(
      b.items,
      { model: 'claude-sonnet-4-5', budget: { window: 30_000 }, variant: '6x9+r1+flow' },
      true,
    );
    expect(formatReport(unmeasured.report)).toMatch(
      /expected CER unknown: no measurement of this variant for claude's readers/,
    );
  });
});

describe('the record carries the full variant', () => {
  for (const variant of ['5x8+c1+r1', '6x10+r1+flow', '4x6+s2']) {
    it(`replays ${variant} pages byte for byte, and they decode to the text`, async () => {
      const b = session(10);
      const options = { model: 'claude-sonnet-4-5', budget: { window: 30_000 }, variant };
      const r = await prepareRequest(b.items, options, true);
      const rec = r.records.find((x) => x.rung === 'snapshot')!;
      const page = rec.params['page'] as PageSpec;
      const v = variant.split('+');
      expect(page.variant).toBe(variant);
      expect(page.cell).toBe(v[0]);
      expect(page.layout).toBe(variant.endsWith('+flow') ? 'flow' : 'lines');
      expect(page.spacing).toEqual({
        x: variant.includes('+c1') ? 1 : 0,
        y: variant.includes('+r1') ? 1 : 0,
      });
      expect(page.scale).toBe(variant.includes('+s2') ? 2 : 1);
      expect(rec.params['text']).toBe('fields');
      const path = appendRecords(b.items, r.records);
      const rebuilt = await rebuildRequest(path, RENDERER);
      expect(JSON.stringify(rebuilt.items)).toBe(JSON.stringify(r.items));
      // Each imaged run's pages decode, with the variant, to its transcript text.
      const first = r.rendered[0]!;
      expect(
        decode(
          first.pages.map((p) => p.png),
          { variant },
        ),
      ).toBe(normalize(first.text));
      expect(first.text).toContain('file_path: src/retry-');
      // The trimmed last page is exactly as tall as its rows.
      const header = r.items.find((i) => i.kind === 'summary')!;
      expect(header.kind === 'summary' && header.text).toContain(`pixel text`);
    });
  }

  it('rejects a record whose variant fields disagree, or whose text format is unknown', async () => {
    const b = session(10);
    const r = await prepareRequest(
      b.items,
      { model: 'claude-sonnet-4-5', budget: { window: 30_000 }, variant: '6x10' },
      true,
    );
    const rec = r.records.find((x) => x.rung === 'snapshot')!;
    const bad = {
      ...rec,
      params: { ...rec.params, page: { ...(rec.params['page'] as object), layout: 'flow' } },
    };
    await expect(rebuildRequest(appendRecords(b.items, [bad]), RENDERER)).rejects.toThrow(
      /params\.page\.variant is '6x10' but its cell, scale, spacing and layout make '6x10\+flow'/,
    );
    const text = { ...rec, params: { ...rec.params, text: 'yaml' } };
    await expect(rebuildRequest(appendRecords(b.items, [text]), RENDERER)).rejects.toThrow(
      /params\.text must be 'fields' or 'json', found "yaml"/,
    );
  });

  it('replays a record written before page variants: same pages and text, the hook now inverted', async () => {
    // Written by glyphfold at commit 5efd291: page { width, height, cell, scale, tokens, trim,
    // compression }, no variant fields, no params.text; tool inputs then were one line of JSON.
    const fixture = JSON.parse(
      readFileSync(new URL('../fixtures/compaction/legacy-snapshot.json', import.meta.url), 'utf8'),
    ) as {
      path: Item[];
      replay: { pages: { width: number; height: number; sha256: string }[]; itemsSha256: string };
    };
    const rec = fixture.path.find((i) => i.kind === 'compaction' && i.rung === 'snapshot')!;
    expect(rec.kind === 'compaction' && rec.params['page']).not.toHaveProperty('variant');
    const rebuilt = await rebuildRequest(fixture.path, RENDERER);
    const images = rebuilt.items.filter((i): i is ImageItem => i.kind === 'image');
    // The page geometry is the one sent then. The bytes changed once, on purpose: the continuation
    // mark is drawn inverted since the 2026-11-30 legibility rounds (one prompt-cache miss after the
    // upgrade); the text the pages hold is still the 5efd291 format, one JSON line per tool input.
    expect(images.map((i) => ({ width: i.width, height: i.height }))).toEqual(
      fixture.replay.pages.map((p) => ({ width: p.width, height: p.height })),
    );
    const page = (rec.kind === 'compaction' ? rec.params['page'] : undefined) as {
      cell: CellName;
      scale: number;
    };
    const text = decode(
      images.map((i) => Buffer.from(i.data, 'base64')),
      { cell: page.cell, scale: page.scale },
    );
    expect(text).toContain('--- model call ');
    expect(text).toMatch(/^\{".*"\}$/m); // tool inputs as one line of canonical JSON, as then
    // And the header item keeps the words it had then.
    const header = rebuilt.items.find((i) => i.kind === 'summary' && i.id.endsWith('~snapshot'));
    expect(header?.kind === 'summary' && header.text).toMatch(
      /^Transcript of items .* pixel text; read it as the conversation at this point\.$/,
    );
  });
});

describe('headers and page choice per layout', () => {
  const run = new Builder();
  run.person('hi');
  run.model('hello');
  const base = { width: 600, height: 600, cell: '6x10' as const, scale: 1, tokens: 500 };

  it('tells the model how to read each layout', () => {
    const flow = snapshotHeader(run.items, 2, { ...base, layout: 'flow', variant: '6x10+flow' });
    expect(flow).toContain('as 2 images of 6x10+flow pixel text');
    expect(flow).toMatch(/a white-on-black ¶ ends each line .* rows simply wrap at the right edge/);
    const lines = snapshotHeader(run.items, 1, { ...base, layout: 'lines', variant: '6x10' });
    expect(lines).toMatch(/a row that ends in a white-on-black hook .* continues on the next row/);
    // A record from before page variants keeps its header word for word.
    expect(snapshotHeader(run.items, 1, base)).toBe(
      'Transcript of items i1..i2 (turns 1-1) as 1 image of 6x10 pixel text; read it as the conversation at this point.',
    );
  });

  it('counts rows of normalized text as the renderer lays them out, in both layouts', () => {
    const texts = [formatItems(session(2).items), 'short\nlines\n\nonly', 'x'.repeat(250), 'a\n'.repeat(30)];
    for (const t of texts.map(normalize)) {
      for (const cols of [20, 80, 97]) {
        const h = lineHistogram(t);
        expect(totalRows(h, cols, 'flow')).toBe(layoutRows(t, { cols, layout: 'flow' }));
        expect(totalRows(h, cols, 'lines')).toBe(layoutRows(t, { cols, layout: 'lines' }));
      }
    }
  });

  it('prefers flow for short lines at the same pitch, and the more legible variant on a tie', () => {
    const cand = (over: Partial<PageCandidate>): PageCandidate => ({
      ...base,
      cols: 100,
      rowsPerPage: 60,
      spacing: { x: 0, y: 0 },
      layout: 'lines',
      variant: '6x10',
      ...over,
    });
    const short = Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n');
    const lines = cand({});
    const flow = cand({ layout: 'flow', variant: '6x10+flow' });
    expect(choosePage([short], [lines, flow]).variant).toBe('6x10+flow');
    const a = cand({ cer: 0.02, variant: '6x10+r1' });
    const b2 = cand({ cer: 0.01 });
    expect(choosePage([short], [a, b2]).cer).toBe(0.01);
  });

  it('sizes pages by the variant’s cell pitch', () => {
    const p = resolveProfile('claude-sonnet-4-5').profile;
    const plain = bestPageShape(p, { variant: '5x8' });
    const spaced = bestPageShape(p, { variant: '5x8+c1+r1' });
    expect(plain.variant).toBe('5x8');
    expect(spaced.variant).toBe('5x8+c1+r1');
    expect(spaced.cols).toBe(Math.floor(spaced.width / 6));
    expect(spaced.rows).toBe(Math.floor(spaced.height / 9));
    expect(plain.cols).toBe(Math.floor(plain.width / 5));
    expect(bestPageShape(p, { cell: '5x8' })).toEqual(plain);
  });
});

describe('pages of tile- and flat-priced providers', () => {
  it('offer the page turned on its side, at the same price, so lines pages keep ~84 columns', async () => {
    const setup = setupCompaction({ model: 'gpt-5', variant: 'gf-6x10' });
    const sizes = setup.pages!.map((p) => `${p.width}x${p.height}:${p.tokens}:${p.cols}`);
    expect(sizes).toEqual(['2048x512:630:341', '512x2048:630:85']);
    // On the bundled session the tall page is the one that holds the text cheaper, and imaging pays.
    const { items } = importTranscript(
      readFileSync(new URL('../../examples/session.claude.jsonl', import.meta.url), 'utf8'),
    );
    const r = await prepareRequest(items, { model: 'gpt-5', budget: { window: 100_000 } }, true);
    expect(r.report.fits).toBe(true);
    expect(r.report.snapshot!.shape).toMatchObject({ width: 512, height: 2048 });
    expect(r.report.snapshot!.ratio).toBeGreaterThan(2);
  });
});
