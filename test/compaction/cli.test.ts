import { builtInLegibility } from '../../src/providers/legibility.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decode } from '../../src/render/index.js';
import { runCli } from '../helpers/cli.js';

const example = join(import.meta.dirname, '../../examples/session.claude.jsonl');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const run = (argv: string[]) => runCli(argv);

describe('glyphfold compact', () => {
  it('writes the request, the pages and the records, and prints the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glyphfold-compact-'));
    dirs.push(dir);
    const r = await run([
      'compact',
      example,
      '--model',
      'claude-sonnet-4-5',
      '--budget',
      '70000',
      '--out',
      dir,
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/compacted .*session\.claude\.jsonl \(claude-code, \d+ items\)/);
    expect(r.out).toMatch(/elide +[\d,]+ → [\d,]+/);
    // The page is a variant measured within the 1% floor for claude readers, with its source.
    expect(r.out).toMatch(
      /snapshot vs text: [\d,]+ image tokens for [\d,]+ text tokens = [\d.]+× fewer; expected CER 0\.\d% \(claude readers, floor 1\.0%; bench\/legibility\/results: /,
    );
    expect(r.out).not.toMatch(/snapshot legibility: no page variant/);
    expect(r.out).toMatch(/\(fits\)/);
    const files = readdirSync(dir).sort();
    expect(files).toContain('request.json');
    expect(files).toContain('records.json');
    const pages = files.filter((f) => /^page-\d{3}\.png$/.test(f));
    expect(pages.length).toBeGreaterThan(0);
    const body = JSON.parse(readFileSync(join(dir, 'request.json'), 'utf8')) as {
      model: string;
      messages: unknown[];
    };
    expect(body.model).toBe('claude-sonnet-4-5');
    // The first page decodes back to transcript text.
    const records = JSON.parse(readFileSync(join(dir, 'records.json'), 'utf8')) as {
      rung: string;
      params: { page: { variant: string } };
    }[];
    const variant = records.find((x) => x.rung === 'snapshot')!.params.page.variant;
    expect(
      builtInLegibility().variants.find((e) => e.variant === variant)?.cer['claude']?.cer,
    ).toBeLessThanOrEqual(0.01);
    const text = decode([readFileSync(join(dir, pages[0]!))], { variant });
    expect(text).toMatch(/^--- /);
  });

  it('--json prints one object naming the files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glyphfold-compact-'));
    dirs.push(dir);
    const r = await run([
      'compact',
      example,
      '--model',
      'gpt-5.4',
      '--budget',
      '80k',
      '--out',
      dir,
      '--json',
    ]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      request: string;
      pages: { file: string }[];
      report: { tokensBefore: number; tokensAfter: number; fits: boolean; rungs: { rung: string }[] };
    };
    expect(j.request).toBe('request.json');
    expect(j.report.fits).toBe(true);
    expect(j.report.tokensAfter).toBeLessThan(j.report.tokensBefore);
    // The four rungs in order, then (without a summarizer) whatever had to be left out.
    expect(j.report.rungs.map((g) => g.rung).slice(0, 4)).toEqual(['elide', 'shed', 'snapshot', 'summarize']);
    for (const p of j.pages) expect(readdirSync(dir)).toContain(p.file);
  });

  it('says what is wrong with its arguments', async () => {
    const none = await run(['compact', example, '--out', '/tmp/x']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/--model ID is required/);
    const bad = await run(['compact', example, '--model', 'm', '--out', '/tmp/x', '--rungs', 'elide,fold']);
    expect(bad.err).toMatch(/--rungs expects names from elide, shed, snapshot, summarize, found 'fold'/);
    const budget = await run(['compact', example, '--model', 'm', '--out', '/tmp/x', '--budget', 'lots']);
    expect(budget.err).toMatch(/--budget expects tokens/);
    const cer = await run(['compact', example, '--model', 'm', '--out', '/tmp/x', '--max-cer', '150%']);
    expect(cer.code).toBe(2);
    expect(cer.err).toMatch(/--max-cer expects an error rate from 0 to 1 or 0% to 100% .*found '150%'/);
    const variant = await run(['compact', example, '--model', 'm', '--out', '/tmp/x', '--variant', '5x8+q1']);
    expect(variant.code).toBe(2);
    expect(variant.err).toMatch(/--variant: variant '5x8\+q1': unknown modifier 'q1'/);
  });

  it('chooses pages under --max-cer, from --legibility measurements first, or as --variant says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'glyphfold-compact-'));
    dirs.push(dir);
    const base = ['compact', example, '--model', 'claude-sonnet-4-5', '--budget', '70000', '--force'];
    const loose = await run([...base, '--out', join(dir, 'a'), '--max-cer', '5%', '--json']);
    const a = JSON.parse(loose.out) as {
      report: { snapshot: { variant: string; legibility: { cer: number } } };
    };
    // Any variant the shipped table measures within 5% for claude readers.
    const within = builtInLegibility()
      .variants.filter((e) => (e.cer['claude']?.cer ?? 1) <= 0.05)
      .map((e) => e.variant);
    expect(within).toContain(a.report.snapshot.variant);
    expect(a.report.snapshot.legibility.cer).toBeLessThanOrEqual(0.05);
    writeFileSync(
      join(dir, 'mine.json'),
      JSON.stringify({
        version: 1,
        variants: [
          {
            variant: '5x8+r1+flow',
            cer: {
              claude: {
                cer: 0.007,
                chars: 3000,
                readers: 2,
                date: '2026-12-01',
                source: 'probe of 2026-12-01',
              },
            },
          },
        ],
      }),
    );
    const own = await run([...base, '--out', join(dir, 'b'), '--legibility', join(dir, 'mine.json')]);
    expect(own.code).toBe(0);
    expect(own.out).toMatch(/\(5x8\+r1\+flow\)/);
    expect(own.out).toMatch(/expected CER 0\.7% \(claude readers, floor 1\.0%; probe of 2026-12-01\)/);
    expect(own.out).not.toMatch(/snapshot legibility:/);
    const records = JSON.parse(readFileSync(join(dir, 'b', 'records.json'), 'utf8')) as {
      rung: string;
      params: { page: Record<string, unknown>; text: string };
    }[];
    const page = records.find((r) => r.rung === 'snapshot')!.params.page;
    expect(page).toMatchObject({
      cell: '5x8',
      scale: 1,
      spacing: { x: 0, y: 1 },
      layout: 'flow',
      variant: '5x8+r1+flow',
    });
    const forced = await run([...base, '--out', join(dir, 'c'), '--variant', '4x6']);
    const four = builtInLegibility().variants.find((e) => e.variant === '4x6')!.cer['claude']!.cer;
    expect(forced.out).toContain(
      `expected CER ${(four * 100).toFixed(1)}% (claude readers, variant chosen by the caller;`,
    );
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({ variants: [{ variant: '5x8', cer: { claude: { cer: 9 } } }] }),
    );
    const bad = await run([...base, '--out', join(dir, 'd'), '--legibility', join(dir, 'bad.json')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/variants\[0\]\.cer\.claude\.cer: expected a rate from 0 to 1/);
  });

  it('--jobs renders on worker threads with the same bytes, and rejects a bad count', async () => {
    const out = () => {
      const dir = mkdtempSync(join(tmpdir(), 'glyphfold-compact-jobs-'));
      dirs.push(dir);
      return dir;
    };
    const args = ['compact', example, '--model', 'claude-sonnet-4-5', '--budget', '70000', '--force'];
    const [one, two] = [out(), out()];
    expect((await run([...args, '--out', one])).code).toBe(0);
    expect((await run([...args, '--out', two, '--jobs', '2'])).code).toBe(0);
    for (const f of readdirSync(one)) {
      expect(readFileSync(join(two, f)).equals(readFileSync(join(one, f))), f).toBe(true);
    }
    const bad = await run([...args, '--out', out(), '--jobs', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/--jobs expects an integer ≥ 1 or 'auto', found '0'/);
  });
});
