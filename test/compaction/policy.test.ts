/**
 * The policy end to end through the real SDK clients against views' fake provider on 127.0.0.1:
 * proactive compaction before a call, reactive compaction after the provider's own overflow error,
 * the cold-cache preference, models without vision, and that no compaction touches the record.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  prepareRequest,
  sendWithCompaction,
  type CompactionOptions,
  type PreparedRequest,
} from '../../src/compaction/policy.js';
import { openaiSummarizer } from '../../src/compaction/summarize.js';
import type { Item } from '../../src/transcript/items.js';
import { Calibrator } from '../../src/tokens/index.js';
import { countServerTokens, startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { shardSession } from './builder.js';

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const history = (turns = 30) => shardSession(turns);

const anthropicSend = (client: Anthropic) => (p: PreparedRequest<'anthropic'>) =>
  client.messages.create(p.body);
const chatSend = (client: OpenAI) => (p: PreparedRequest<'openai-chat'>) =>
  client.chat.completions.create(p.body);

describe('policy through the real clients', () => {
  it('compacts before the call when the estimate is over the trigger (proactive)', async () => {
    server = await startProviderServer({ contextWindow: 60_000 });
    const client = new Anthropic({ apiKey: 'test', baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const b = history(45);
    const before = JSON.stringify(b.items);
    const r = await sendWithCompaction(b.items, anthropicSend(client), {
      model: 'claude-haiku-4-5',
      wire: 'anthropic',
      budget: { window: 60_000 },
      cache: { lastCallAt: 0, now: 1 },
    });
    expect(JSON.stringify(b.items)).toBe(before);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.status).toBe(200);
    expect(r.overflow).toBeUndefined();
    expect(r.prepared.decision.reason).toMatch(/exceeds the (trigger|input limit)/);
    expect(r.records.map((c) => c.rung)).toContain('snapshot');
    expect(r.prepared.report.fits).toBe(true);
    expect(r.response.content[0]).toMatchObject({ type: 'text' });
  });

  for (const wire of ['anthropic', 'openai-chat'] as const) {
    it(`recalibrates, rebuilds and retries once on the provider's overflow error (${wire})`, async () => {
      const b = history(24);
      const model = wire === 'anthropic' ? 'claude-haiku-4-5' : 'gpt-5.4';
      const calibrator = new Calibrator();
      const base: CompactionOptions = { model, wire, calibrator, cache: { lastCallAt: 0, now: 1 } };
      // Our estimate of the request as it is, and the server's own count of the same body.
      const plain = await prepareRequest(b.items, { ...base, rungs: [] });
      const ours = plain.estimate;
      const natural = countServerTokens(wire, plain.body);
      // The server counts 1.6× what we do and allows 1.2× our estimate: only its error can tell us.
      const factor = (1.6 * ours) / natural;
      server = await startProviderServer({
        contextWindow: Math.floor(1.2 * ours),
        countTokens: (p, body) => Math.ceil(countServerTokens(p, body) * factor),
      });
      const options: CompactionOptions = { ...base, budget: { window: 200_000, triggerAt: ours + 500 } };
      const before = JSON.stringify(b.items);
      const r =
        wire === 'anthropic'
          ? await sendWithCompaction(
              b.items,
              anthropicSend(
                new Anthropic({ apiKey: 'test', baseURL: server.anthropicBaseURL, maxRetries: 0 }),
              ),
              { ...options, wire },
            )
          : await sendWithCompaction(
              b.items,
              chatSend(new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseURL, maxRetries: 0 })),
              { ...options, wire },
            );
      expect(JSON.stringify(b.items)).toBe(before);
      expect(server.requests.map((q) => q.status)).toEqual([400, 200]);
      expect(r.overflow?.measuredTokens).toBe(server.requests[0]!.inputTokens);
      expect(calibrator.ratio(model)).toBeCloseTo(server.requests[0]!.inputTokens / ours, 5);
      expect(r.prepared.report.reasons[0]).toMatch(/provider overflow: measured \d+ tokens/);
      expect(r.records.length).toBeGreaterThan(0);
      expect(server.requests[1]!.inputTokens).toBeLessThanOrEqual(Math.floor(1.2 * ours));
    });
  }

  it('throws the second overflow instead of looping', async () => {
    server = await startProviderServer({ contextWindow: 10 });
    const client = new Anthropic({ apiKey: 'test', baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const b = history(3);
    await expect(
      sendWithCompaction(b.items, anthropicSend(client), {
        model: 'claude-haiku-4-5',
        wire: 'anthropic',
        cache: { lastCallAt: 0, now: 1 },
      }),
    ).rejects.toThrow(/prompt is too long/);
    expect(server.requests).toHaveLength(2);
  });

  it('compacts early only when the cache is cold, and then without a model call', async () => {
    server = await startProviderServer();
    const b = history();
    const plain = await prepareRequest(b.items, { model: 'claude-haiku-4-5', rungs: [] });
    // The estimate sits at 85% of the trigger: past the early mark, under the trigger.
    const triggerAt = Math.ceil(plain.estimate / 0.85);
    const summarizer = {
      client: openaiSummarizer({
        model: 'gpt-5-mini',
        apiKey: 'k',
        baseURL: server.openaiBaseURL,
        maxRetries: 0,
      }),
      window: 100_000,
    };
    const opts = { model: 'claude-haiku-4-5', budget: { window: 400_000, triggerAt }, summarizer };
    const warm = await prepareRequest(b.items, { ...opts, cache: { lastCallAt: 1_000, now: 2_000 } });
    expect(warm.decision.compact).toBe(false);
    expect(warm.records).toEqual([]);
    const cold = await prepareRequest(b.items, {
      ...opts,
      cache: { lastCallAt: 1_000, now: 1_000 + 3_600_000 },
    });
    expect(cold.decision).toMatchObject({ compact: true });
    expect(cold.decision.reason).toMatch(/cache is cold/);
    expect(cold.records.length).toBeGreaterThan(0);
    expect(cold.estimate).toBeLessThan(plain.estimate);
    expect(cold.report.economics?.warm).toBe(false);
    expect(server.requests).toHaveLength(0);
    // Not told anything about the cache: unknown is its own state and never compacts early.
    const unknown = await prepareRequest(b.items, opts);
    expect(unknown.decision).toMatchObject({ compact: false });
    expect(unknown.decision.reason).toMatch(/cache state unknown/);
    expect(unknown.records).toEqual([]);
    // A first call (new or resumed session) is cold by definition.
    const first = await prepareRequest(b.items, { ...opts, cache: { firstCall: true } });
    expect(first.decision.reason).toMatch(/cache is cold/);
    expect(first.records.length).toBeGreaterThan(0);
  });

  it('gives a model without vision a summary made through the real openai client', async () => {
    server = await startProviderServer({ reply: () => ({ text: '## Goal\nfix the flaky payment tests' }) });
    const b = history();
    const summarizer = {
      client: openaiSummarizer({
        model: 'gpt-5-mini',
        apiKey: 'k',
        baseURL: server.openaiBaseURL,
        maxRetries: 0,
      }),
      window: 100_000,
    };
    const client = new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseURL, maxRetries: 0 });
    const before = JSON.stringify(b.items);
    const r = await sendWithCompaction(b.items, chatSend(client), {
      model: 'o3-mini',
      wire: 'openai-chat',
      budget: { window: 40_000 },
      summarizer,
    });
    expect(JSON.stringify(b.items)).toBe(before);
    expect(r.prepared.report.reasons).toContain('model has no vision: snapshots skipped');
    expect(r.records.map((c) => c.rung)).toContain('summarize');
    const sent = JSON.stringify(server.requests[server.requests.length - 1]!.body);
    expect(sent).toContain('fix the flaky payment tests');
    expect(sent).not.toContain('image_url');
  });

  it('rebuilds the same bytes after a resume from the stored record', async () => {
    const b = history();
    const options: CompactionOptions = {
      model: 'claude-haiku-4-5',
      budget: { window: 60_000 },
      cache: { firstCall: true },
    };
    const first = await prepareRequest(b.items, options);
    expect(first.records.length).toBeGreaterThan(0);
    // The harness appends the records, persists, and a new process loads the path back.
    const path: Item[] = b.items.slice();
    for (const rec of first.records) {
      const last = path[path.length - 1]!;
      path.push({
        ...rec,
        id: `cmp${path.length}`,
        parent: last.id,
        turn: last.turn,
        time: last.time,
      } as Item);
    }
    const resumed = JSON.parse(JSON.stringify(path)) as Item[];
    const again = await prepareRequest(resumed, options);
    expect(again.records).toEqual([]);
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
  });
});
