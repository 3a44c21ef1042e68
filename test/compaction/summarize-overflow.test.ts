/**
 * The summarizer's own overflow: when the summarizer answers "prompt is too long" (Anthropic, OpenAI,
 * Gemini shapes), `summarize` re-chunks what is left with the provider's count and retries. Real
 * `@anthropic-ai/sdk` and `openai` clients and plain fetch for Gemini, against the loopback provider
 * server, which counts tokens by its own rule and answers over its window with each provider's error.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  anthropicSummarizer,
  geminiSummarizer,
  MAX_SUMMARIZER_OVERFLOWS,
  openaiSummarizer,
  summarize,
  type SummarizerClient,
} from '../../src/compaction/summarize.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { Builder } from './builder.js';

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** 30 tool results, each with a marker that must reach the summarizer in some accepted request. */
function longRun(): Builder {
  const b = new Builder();
  b.person('Task: find why the nightly export is slow.');
  for (let k = 0; k < 30; k++) {
    const lines = Array.from(
      { length: 12 },
      (_, i) => `export step ${k}.${i} took ${k * 31 + i} ms on shard ${i}`,
    );
    b.tool('bash', { cmd: `time export --shard ${k}` }, `MARKER-${k}\n${lines.join('\n')}`);
  }
  return b;
}

const LIMIT = 1500;

const clients: Record<string, (s: ProviderServer) => SummarizerClient> = {
  anthropic: (s) =>
    anthropicSummarizer({
      model: 'claude-haiku-4-5',
      client: new Anthropic({ apiKey: 'k', baseURL: s.anthropicBaseURL, maxRetries: 0 }),
    }),
  'openai-chat': (s) =>
    openaiSummarizer({
      model: 'gpt-5-mini',
      client: new OpenAI({ apiKey: 'k', baseURL: s.openaiBaseURL, maxRetries: 0 }),
    }),
  gemini: (s) => geminiSummarizer({ model: 'gemini-2.5-flash', apiKey: 'k', baseURL: s.geminiBaseURL }),
};

describe("summarize survives the summarizer's own overflow", () => {
  for (const [provider, make] of Object.entries(clients)) {
    it(`${provider}: re-chunks with the provider's count and limit, loses no item, and merges`, async () => {
      server = await startProviderServer({ contextWindow: LIMIT, reply: () => ({ text: '## Goal\npart' }) });
      const b = longRun();
      // The caller believes the window is 100k: the first call sends everything and overflows.
      const r = await summarize(b.items, { client: make(server), window: 100_000, maxTokens: 200 });
      const refused = server.requests.filter((q) => q.status !== 200);
      const accepted = server.requests.filter((q) => q.status === 200);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused.length).toBe(r.overflows);
      expect(refused.every((q) => q.inputTokens > LIMIT)).toBe(true);
      expect(accepted.every((q) => q.inputTokens <= LIMIT)).toBe(true);
      expect(r.chunks).toBeGreaterThan(1);
      expect(r.calls).toBe(server.requests.length);
      expect(r.text).toBe('## Goal\npart');
      // Every item reached the summarizer in a request it accepted.
      const seen = accepted.map((q) => JSON.stringify(q.body)).join('\n');
      for (let k = 0; k < 30; k++) expect(seen, `MARKER-${k}`).toContain(`MARKER-${k}`);
    });
  }

  it('learns from the count when the window is right but the estimate is too low', async () => {
    server = await startProviderServer({ contextWindow: LIMIT, reply: () => ({ text: 'ok' }) });
    const r = await summarize(longRun().items, {
      client: clients['anthropic']!(server),
      window: LIMIT,
      maxTokens: 200,
      estimateText: (t) => Math.ceil(t.length / 40), // ten times too optimistic
    });
    expect(r.overflows).toBeGreaterThanOrEqual(1);
    expect(r.overflows).toBeLessThanOrEqual(2);
    const accepted = server.requests.filter((q) => q.status === 200);
    expect(accepted.every((q) => q.inputTokens <= LIMIT)).toBe(true);
    expect(r.text).toBe('ok');
  });

  it('sizes chunks by the summarizer model’s own window when none is given', async () => {
    server = await startProviderServer({ reply: () => ({ text: 'ok' }) });
    const r = await summarize(longRun().items, { client: clients['anthropic']!(server), maxTokens: 200 });
    // claude-haiku-4-5's profile window holds the whole run: one call.
    expect(r).toMatchObject({ chunks: 1, calls: 1, overflows: 0 });
  });

  it('gives up after a bounded number of overflows, naming the model and the last error', async () => {
    // A window no prompt fits: even the system prompt alone is over it.
    server = await startProviderServer({ contextWindow: 5 });
    const err = await summarize(longRun().items, {
      client: clients['openai-chat']!(server),
      window: 100_000,
      maxTokens: 200,
    }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).toMatch(/window 5 leaves|still overflows/);
    expect(server.requests.length).toBeLessThanOrEqual(MAX_SUMMARIZER_OVERFLOWS + 1);
  });

  it('passes every other error through untouched', async () => {
    server = await startProviderServer({ reply: () => ({ text: '' }) });
    await expect(
      summarize(longRun().items, { client: clients['gemini']!(server), window: 100_000, maxTokens: 200 }),
    ).rejects.toThrow(/returned no text/);
  });
});
