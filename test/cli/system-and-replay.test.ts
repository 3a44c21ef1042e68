/**
 * Issue 12: the imported system prompt reaches `view` and `compact` unless `--system`/`--system-file`
 * replace it (and `compact` counts it in its budget); `view --workspace` replays compaction records,
 * so it shows the request `/context` counts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSlash } from '../../src/commands/index.js';
import { Workspace } from '../../src/store/index.js';
import { importTranscript } from '../../src/transcript/import/index.js';
import { runCli } from '../helpers/cli.js';

const ANTHROPIC = 'test/fixtures/transcripts/anthropic.json';
const IMPORTED_SYSTEM = 'You are a research assistant with a browser tool. Cite the pages you used.';
const example = join(import.meta.dirname, '../../examples/session.claude.jsonl');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'gf-system-'));
  dirs.push(d);
  return d;
}

describe('the system prompt a transcript carried', () => {
  it('is sent by view unless --system or --system-file replaces it', async () => {
    const own = await runCli(['view', ANTHROPIC, '--provider', 'anthropic']);
    expect(own.code, own.err).toBe(0);
    expect(JSON.stringify(JSON.parse(own.out).system)).toContain(IMPORTED_SYSTEM);
    expect(own.err).toMatch(/system: the transcript's own \(\d+ chars\)/);
    const chat = await runCli(['view', ANTHROPIC, '--provider', 'openai-chat']);
    expect(JSON.parse(chat.out).messages[0]).toMatchObject({ role: 'system' });
    expect(JSON.stringify(JSON.parse(chat.out).messages[0])).toContain(IMPORTED_SYSTEM);
    const replaced = await runCli(['view', ANTHROPIC, '--provider', 'anthropic', '--system', 'Be brief.']);
    expect(JSON.stringify(JSON.parse(replaced.out).system)).not.toContain(IMPORTED_SYSTEM);
    expect(JSON.stringify(JSON.parse(replaced.out).system)).toContain('Be brief.');
    const both = await runCli([
      'view',
      ANTHROPIC,
      '--provider',
      'anthropic',
      '--system',
      'a',
      '--system-file',
      'b',
    ]);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/give one, not both/);
  });

  it('is in the request compact writes and counted in its budget; --system-file replaces it', async () => {
    const out = tmp();
    const own = await runCli(['compact', ANTHROPIC, '--model', 'claude-sonnet-4-5', '--out', out, '--json']);
    expect(own.code, own.err).toBe(0);
    const body = JSON.parse(readFileSync(join(out, 'request.json'), 'utf8'));
    expect(JSON.stringify(body.system)).toContain(IMPORTED_SYSTEM);
    const policy = join(tmp(), 'policy.md');
    const big = 'Policy line: never touch production without a ticket.\n'.repeat(120);
    writeFileSync(policy, big);
    const out2 = tmp();
    const file = await runCli([
      'compact',
      ANTHROPIC,
      '--model',
      'claude-sonnet-4-5',
      '--out',
      out2,
      '--system-file',
      policy,
      '--json',
    ]);
    expect(file.code, file.err).toBe(0);
    const body2 = JSON.parse(readFileSync(join(out2, 'request.json'), 'utf8'));
    expect(JSON.stringify(body2.system)).toContain('never touch production');
    expect(JSON.stringify(body2.system)).not.toContain(IMPORTED_SYSTEM);
    // The 6 KB policy is counted: the request is that much larger in the report.
    const before = (JSON.parse(own.out) as { report: { tokensBefore: number } }).report.tokensBefore;
    const after = (JSON.parse(file.out) as { report: { tokensBefore: number } }).report.tokensBefore;
    expect(after - before).toBeGreaterThan(big.length / 8);
  });
});

describe('view --workspace', () => {
  it('replays the compaction records: the body is the compacted request /context counts', async () => {
    const dir = tmp();
    const ws = Workspace.open(dir);
    const history = ws.history('conv');
    history.adopt(importTranscript(readFileSync(example, 'utf8')).items);
    const compaction = { model: 'claude-sonnet-4-5', budget: { window: 60_000 } };
    const compacted = await runSlash('/compact', { history, compaction });
    expect(compacted.output).toMatch(/snapshot/);
    const context = await runSlash('/context', { history, compaction });
    history.close();
    ws.close();
    const counted = Number(/: (\d+) of 60000 tokens/.exec(context.output)![1]);

    const view = await runCli([
      'view',
      '--workspace',
      dir,
      'conv',
      '--provider',
      'anthropic',
      '--model',
      'claude-sonnet-4-5',
    ]);
    expect(view.code, view.err).toBe(0);
    expect(view.err).toMatch(/compaction: \d+ records in the path; the last group replayed/);
    const estimate = Number(/estimate: (\d+) input tokens/.exec(view.err)![1]);
    expect(estimate).toBe(counted);
    // Pages, not the original middle.
    expect(view.out).toContain('"media_type": "image/png"');
    const whole = await runCli(['view', example, '--provider', 'anthropic', '--model', 'claude-sonnet-4-5']);
    const uncompacted = Number(/estimate: (\d+) input tokens/.exec(whole.err)![1]);
    expect(estimate).toBeLessThan(uncompacted);
  });
});
