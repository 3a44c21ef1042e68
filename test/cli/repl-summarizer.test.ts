/** `glyphfold repl --summarizer`: `/compact focus …` reaches the summarizer (issue 12). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from '../../src/store/index.js';
import { Builder, filler } from '../compaction/builder.js';
import { runCli } from '../helpers/cli.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';

let server: ProviderServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('glyphfold repl --summarizer', () => {
  it('sends /compact instructions to the summarizer through the real openai client', async () => {
    server = await startProviderServer({ reply: () => ({ text: '## Goal\nspeed up the export' }) });
    const dir = mkdtempSync(join(tmpdir(), 'gf-repl-sum-'));
    dirs.push(dir);
    const b = new Builder();
    b.person('Task: find why the nightly export is slow.');
    for (let t = 0; t < 8; t++) {
      b.model(filler(4000, `plan${t}`));
      b.person(`keep going (${t})`);
    }
    const ws = Workspace.open(dir);
    const h = ws.history('conv');
    h.adopt(b.items);
    h.close();
    ws.close();
    const r = await runCli(
      [
        'repl',
        '--workspace',
        dir,
        '--model',
        'gpt-3.5-turbo',
        '--budget',
        '8000',
        '--summarizer',
        'gpt-5-mini',
        '--summarizer-url',
        server.openaiBaseURL,
      ],
      { stdin: '/compact focus on the export timings\n/quit\n' },
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/summarize +[\d,]+ → [\d,]+: summarized \d+ items with gpt-5-mini/);
    const asked = server.requests.map((q) => JSON.stringify(q.body)).join('\n');
    expect(asked).toContain('focus on the export timings');
  });
});
