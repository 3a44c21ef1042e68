import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
      '60000',
      '--out',
      dir,
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/compacted .*session\.claude\.jsonl \(claude-code, \d+ items\)/);
    expect(r.out).toMatch(/elide +[\d,]+ → [\d,]+/);
    expect(r.out).toMatch(/snapshot vs text: [\d,]+ image tokens for [\d,]+ text tokens = [\d.]+× fewer/);
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
    const text = decode([readFileSync(join(dir, pages[0]!))]);
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
    expect(j.report.rungs.map((g) => g.rung)).toEqual(['elide', 'shed', 'snapshot', 'summarize']);
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
  });
});
