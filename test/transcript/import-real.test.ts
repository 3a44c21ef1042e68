/**
 * Real public transcripts (test/fixtures/transcripts/real, sources and licences in its README): each
 * imports as its format with every call paired, and `glyphfold compact` runs on it under a budget
 * that forces the ladder.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importTranscript, type ImportFormat } from '../../src/transcript/import/index.js';
import { KIND_AUTHORS } from '../../src/transcript/items.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES, calls, expectLinearPath, results } from './fixtures.js';

const REAL = join(FIXTURES, 'real');
const read = (name: string): string => readFileSync(join(REAL, name), 'utf8');

/** What each file is, and what a reader can count in it by hand. */
const EXPECTED: Record<string, { format: ImportFormat; calls: number; person: number }> = {
  'swe-agent-function-calling-simple.traj': { format: 'swe-agent', calls: 5, person: 1 },
  'swe-agent-marshmallow-1867-function-calling.traj': { format: 'swe-agent', calls: 11, person: 1 },
  'swe-agent-pydicom-1458.traj': { format: 'swe-agent', calls: 0, person: 1 },
  'mini-swe-agent-github-issue.traj.json': { format: 'openai-chat', calls: 0, person: 11 },
  'langgraph-react-agent-tool-calling.langchain.json': { format: 'langchain', calls: 2, person: 1 },
  'langgraph-response-2.langchain.json': { format: 'langchain', calls: 1, person: 1 },
};

describe('real public transcripts', () => {
  // claude-code/ and codex/ hold harness folders, tested by test/cli/import-folder.test.ts.
  const files = readdirSync(REAL).filter((f) => !['README.md', 'claude-code', 'codex'].includes(f));

  it('are all listed, at least 6, each under 200 KB and named in the README', () => {
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(files.length).toBeGreaterThanOrEqual(6);
    const readme = read('README.md');
    for (const f of files) {
      expect(readFileSync(join(REAL, f)).length).toBeLessThanOrEqual(200 * 1024);
      expect(readme).toContain(`\`${f}\``);
    }
  });

  for (const [file, want] of Object.entries(EXPECTED)) {
    it(`${file} imports as ${want.format} with every call answered`, () => {
      const r = importTranscript(read(file));
      expect(r.format).toBe(want.format);
      expectLinearPath(r.items);
      for (const item of r.items) expect(KIND_AUTHORS[item.kind]).toContain(item.author);
      expect(calls(r.items)).toHaveLength(want.calls);
      expect(results(r.items)).toHaveLength(want.calls);
      const answered = new Set(results(r.items).map((x) => x.callId));
      for (const c of calls(r.items)) expect(answered.has(c.callId)).toBe(true);
      expect(r.items.filter((i) => i.kind === 'message' && i.author === 'person')).toHaveLength(want.person);
      expect(r.warnings.filter((w) => /orphan/.test(w))).toEqual([]);
    });
  }

  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  for (const file of Object.keys(EXPECTED)) {
    it(`glyphfold compact runs on ${file}`, async () => {
      const out = mkdtempSync(join(tmpdir(), 'gf-real-'));
      dirs.push(out);
      // --force climbs the ladder even where the request fits; 12k makes the largest file compact for real.
      const run = await runCli([
        'compact',
        join(REAL, file),
        '--model',
        'claude-sonnet-4-5',
        '--budget',
        '12000',
        '--force',
        '--out',
        out,
        '--json',
      ]);
      expect(run.code, run.err).toBe(0);
      const { report } = JSON.parse(run.out) as {
        report: { tokensBefore: number; tokensAfter: number; fits: boolean };
      };
      expect(report.fits).toBe(true);
      expect(report.tokensAfter).toBeLessThanOrEqual(report.tokensBefore);
      if (report.tokensBefore > 12000) expect(report.tokensAfter).toBeLessThan(report.tokensBefore);
      const body = JSON.parse(readFileSync(join(out, 'request.json'), 'utf8')) as { messages: unknown[] };
      expect(body.messages.length).toBeGreaterThan(0);
    }, 60_000);
  }
});
