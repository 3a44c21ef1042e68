import { afterEach, describe, expect, it } from 'vitest';
import {
  anthropicSummarizer,
  openaiSummarizer,
  summarize,
  SUMMARY_SECTIONS,
} from '../../src/compaction/summarize.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder, filler } from './builder.js';
import { anthropicText, lastUserText, openaiText, startServer, type TestServer } from './server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const structured = (tag: string) => SUMMARY_SECTIONS.map((s) => `## ${s}\n${tag}`).join('\n');

describe('summarize through the real clients', () => {
  it('summarizes in one call through @anthropic-ai/sdk when the source fits', async () => {
    server = await startServer(() => ({ body: anthropicText(structured('one')) }));
    const b = new Builder();
    b.person('Rename foo to bar in src/a.ts. Keep tests green.');
    b.tool('bash', { cmd: 'grep -rn foo src' }, 'src/a.ts:12: foo()');
    const client = anthropicSummarizer({
      model: 'claude-haiku-4-5',
      apiKey: 'k',
      baseURL: server.url,
      maxRetries: 0,
    });
    const r = await summarize(b.items, { client, window: 100_000, instructions: 'focus on renames' });
    expect(r).toMatchObject({ chunks: 1, calls: 1 });
    expect(r.text).toContain('## Constraints and user corrections');
    const req = server.requests[0]!;
    expect(req.path).toBe('/v1/messages');
    expect(req.body['model']).toBe('claude-haiku-4-5');
    expect(req.body['system']).toMatch(/## Files and commands/);
    const user = lastUserText(req);
    expect(user).toContain('Rename foo to bar in src/a.ts. Keep tests green.');
    expect(user).toContain('grep -rn foo src');
    expect(user).toContain('The person asks you to: focus on renames');
  });

  it('chunks a source larger than the window, then merges, through openai', async () => {
    server = await startServer((rec, i) => ({
      body: openaiText(`summary ${i}: ${lastUserText(rec).length} chars`),
    }));
    const b = new Builder();
    b.person('Task: audit logs.');
    for (let k = 0; k < 12; k++) b.tool('cat', { file: `log${k}` }, filler(6000, `log${k}`));
    const client = openaiSummarizer({
      model: 'gpt-5-mini',
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    });
    const r = await summarize(b.items, { client, window: 8000, maxTokens: 1000 });
    expect(r.chunks).toBeGreaterThan(3);
    expect(r.calls).toBe(r.chunks + 1);
    expect(r.text).toMatch(new RegExp(`^summary ${r.chunks}:`));
    for (let i = 0; i < r.chunks; i++) {
      const req = server.requests[i]!;
      expect(req.path).toBe('/v1/chat/completions');
      expect(lastUserText(req)).toMatch(new RegExp(`part ${i + 1} of ${r.chunks}`));
      // Each chunk fits the summarizer window by the (conservative) estimate.
      expect(JSON.stringify(req.body).length / 3).toBeLessThan(8000);
    }
    const merge = lastUserText(server.requests[r.chunks]!);
    expect(merge).toContain('<part 1>');
    expect(merge).toContain(`summary ${r.chunks - 1}`);
  });

  it('summarizes from the record, not from an earlier summary of items it has', async () => {
    server = await startServer(() => ({ body: anthropicText('ok') }));
    const b = new Builder();
    const first = b.person('Original instruction: use tabs.');
    const last = b.model('Understood.');
    const earlier: Item = {
      kind: 'summary',
      author: 'machinery',
      id: 's1',
      parent: last.id,
      turn: 1,
      time: '',
      text: 'EARLIER SUMMARY',
      covers: { from: first.id, to: last.id },
    };
    const imported: Item = {
      ...earlier,
      id: 's2',
      text: 'IMPORTED SUMMARY',
      covers: { from: 'gone1', to: 'gone2' },
    };
    const client = anthropicSummarizer({ model: 'm', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const r = await summarize([imported, ...b.items, earlier], { client, window: 50_000 });
    const user = lastUserText(server.requests[0]!);
    expect(user).toContain('Original instruction: use tabs.');
    expect(user).toContain('IMPORTED SUMMARY');
    expect(user).not.toContain('EARLIER SUMMARY');
    expect(r.source).toEqual(['s2', first.id, last.id]);
  });

  it('reports provider errors and windows too small to use', async () => {
    server = await startServer(() => ({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'bad model' } },
    }));
    const b = new Builder();
    b.person('hi');
    const client = anthropicSummarizer({ model: 'nope', apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    await expect(summarize(b.items, { client, window: 50_000 })).rejects.toThrow(/bad model/);
    await expect(summarize(b.items, { client, window: 4100 })).rejects.toThrow(
      /leaves .* tokens for the source/,
    );
  });
});
