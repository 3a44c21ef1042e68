/**
 * The reactive path for every wire format the fake provider speaks: the provider rejects the request as
 * too long (its own error body and status from PROVIDERS.md), glyphfold reads the measured count where
 * the message has one, recalibrates, rebuilds and retries once. OpenAI Responses goes through the real
 * `openai` client's `responses.create`; Gemini through plain fetch to `generateContent`. After the
 * retry, the records returned replay to the same bytes.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isPreparedFor,
  prepareRequest,
  sendWithCompaction,
  type CompactionOptions,
  type PreparedRequest,
} from '../../src/compaction/policy.js';
import type { Item } from '../../src/transcript/items.js';
import { hasReasoningIds, type WireBodies, type WireProvider } from '../../src/views/index.js';
import { Calibrator } from '../../src/tokens/index.js';
import {
  countServerTokens,
  startProviderServer,
  type FakeProvider,
  type ProviderServer,
} from '../helpers/provider-server.js';
import { shardSession } from './builder.js';

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const history = (turns = 24) => shardSession(turns);

type Send = (p: PreparedRequest) => Promise<unknown>;

/** The prepared body for `wire`, typed for its SDK; a request built for another wire is a test bug. */
function bodyFor<P extends WireProvider>(wire: P, p: PreparedRequest): WireBodies[P] {
  if (!isPreparedFor(p, wire)) throw new Error(`prepared for ${p.setup.wire}, sent as ${wire}`);
  return p.body;
}

const MODEL: Record<FakeProvider, string> = {
  anthropic: 'claude-haiku-4-5',
  'openai-chat': 'gpt-5.4',
  'openai-responses': 'gpt-5.4',
  gemini: 'gemini-2.5-pro',
};

/** Gemini has no client in the dependencies: a plain fetch that throws the provider's body as an SDK would. */
function geminiSend(s: ProviderServer, model: string): Send {
  return async (p) => {
    const res = await fetch(`${s.geminiBaseURL}/models/${model}:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(p.body),
    });
    const text = await res.text();
    if (!res.ok) throw Object.assign(new Error(`${res.status} ${text}`), { status: res.status });
    return JSON.parse(text) as unknown;
  };
}

function sender(wire: FakeProvider, s: ProviderServer): Send {
  switch (wire) {
    case 'anthropic': {
      const c = new Anthropic({ apiKey: 'test', baseURL: s.anthropicBaseURL, maxRetries: 0 });
      return (p) => c.messages.create(bodyFor('anthropic', p));
    }
    case 'openai-chat': {
      const c = new OpenAI({ apiKey: 'test', baseURL: s.openaiBaseURL, maxRetries: 0 });
      return (p) => c.chat.completions.create(bodyFor('openai-chat', p));
    }
    case 'openai-responses': {
      const c = new OpenAI({ apiKey: 'test', baseURL: s.openaiBaseURL, maxRetries: 0 });
      return (p) => {
        const body = bodyFor('openai-responses', p);
        if (!hasReasoningIds(body)) throw new Error('reasoning without its rs_ id');
        return c.responses.create(body);
      };
    }
    case 'gemini':
      return geminiSend(s, MODEL.gemini);
  }
}

/** The records appended after the call, as a harness would, persisted and loaded back. */
function appendRecords(items: readonly Item[], records: readonly unknown[]): Item[] {
  const path: Item[] = items.slice();
  for (const rec of records) {
    const last = path[path.length - 1]!;
    path.push({
      ...(rec as object),
      id: `cmp${path.length}`,
      parent: last.id,
      turn: last.turn,
      time: last.time,
    } as Item);
  }
  return JSON.parse(JSON.stringify(path)) as Item[];
}

/**
 * A scene where only the provider's error can tell glyphfold it is wrong: the server counts `factor`×
 * our estimate of the uncompacted request and allows `room`× our estimate; the budget's window is the
 * server's, with output and margin small enough that the proactive check lets the request through.
 */
async function scene(wire: FakeProvider, factor: number, calibrator: Calibrator, room = 1.2) {
  const b = history();
  const model = MODEL[wire];
  // The densest page (4x6), as before pages were chosen by legibility: these scenes test recalibration
  // and replay, and their room (1.2× our estimate against 1.6× counted) needs its compression.
  const base: CompactionOptions = {
    model,
    wire,
    calibrator,
    cache: { lastCallAt: 0, now: 1 },
    variant: '4x6',
  };
  const plain = await prepareRequest(b.items, { ...base, rungs: [] });
  const ours = plain.estimate;
  const natural = countServerTokens(wire, plain.body);
  const window = Math.floor(room * ours);
  server = await startProviderServer({
    contextWindow: window,
    countTokens: (p, body) => Math.ceil((countServerTokens(p, body) * factor * ours) / natural),
  });
  const options: CompactionOptions = {
    ...base,
    request: { maxTokens: 1000 },
    budget: { window, maxOutput: 1000, margin: 256, triggerAt: ours + 500 },
  };
  return { b, model, ours, window, options, send: sender(wire, server) };
}

describe('reactive compaction on every wire format', () => {
  for (const wire of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const) {
    it(`recalibrates, rebuilds, retries once and replays the same bytes (${wire})`, async () => {
      const calibrator = new Calibrator();
      const { b, model, ours, window, options, send } = await scene(wire, 1.6, calibrator);
      const before = JSON.stringify(b.items);
      const r = await sendWithCompaction(b.items, send, options);
      expect(JSON.stringify(b.items)).toBe(before);
      const reqs = server!.requests;
      expect(reqs.map((q) => q.status)).toEqual([400, 200]);
      expect(reqs.every((q) => q.provider === wire && q.problems.length === 0)).toBe(true);
      expect(r.overflow?.provider).toBe(wire === 'gemini' ? 'gemini' : wire.split('-')[0]);
      if (wire === 'openai-responses') {
        // No count in the message: what is learned is a lower bound, and the reason says so.
        expect(r.overflow?.measuredTokens).toBeUndefined();
        expect(r.prepared.report.reasons[0]).toMatch(/provider overflow without a count/);
        expect(calibrator.ratio(model)).toBeGreaterThanOrEqual((window - 1000 + 256) / ours);
      } else {
        expect(r.overflow?.measuredTokens).toBe(reqs[0]!.inputTokens);
        expect(r.prepared.report.reasons[0]).toMatch(/provider overflow: measured \d+ tokens/);
        expect(calibrator.ratio(model)).toBeCloseTo(reqs[0]!.inputTokens / ours, 5);
      }
      expect(r.records.length).toBeGreaterThan(0);
      expect(r.records.map((c) => c.rung)).toContain('snapshot');
      expect(reqs[1]!.inputTokens).toBeLessThanOrEqual(window);
      // The body sent on the retry is the one a later replay of the records rebuilds, byte for byte.
      expect(JSON.stringify(reqs[1]!.body)).toBe(JSON.stringify(r.prepared.body));
      const again = await prepareRequest(appendRecords(b.items, r.records), options);
      expect(again.records).toEqual([]);
      expect(JSON.stringify(again.body)).toBe(JSON.stringify(reqs[1]!.body));
    });
  }

  for (const wire of ['anthropic', 'openai-responses', 'gemini'] as const) {
    it(`fits on the retry when the calibrator had learned a different ratio before (${wire})`, async () => {
      // Earlier calls (screenshots, say) taught the calibrator 4; this request counts 1.6× that
      // calibrated estimate: the error says we were low, and the rebuild must not lower the ratio.
      const calibrator = new Calibrator();
      calibrator.observe(MODEL[wire], 1000, 4000);
      const { b, model, options, send, window } = await scene(wire, 1.6, calibrator);
      const r = await sendWithCompaction(b.items, send, options);
      expect(server!.requests.map((q) => q.status)).toEqual([400, 200]);
      // The calibrator learns raw/measured, so a "too long" can only raise the ratio it had.
      expect(calibrator.ratio(model)).toBeGreaterThan(4);
      expect(server!.requests[1]!.inputTokens).toBeLessThanOrEqual(window);
      expect(r.records.length).toBeGreaterThan(0);
    });
  }

  it('assumes at least the window when the Responses API gives no count, so the retry fits', async () => {
    // The provider counts twice our estimate and allows 1.5×: "25% low" would rebuild to about 1.6×.
    const calibrator = new Calibrator();
    const { b, model, ours, window, options, send } = await scene('openai-responses', 2, calibrator, 1.5);
    const r = await sendWithCompaction(b.items, send, options);
    expect(server!.requests.map((q) => q.status)).toEqual([400, 200]);
    expect(server!.requests[1]!.inputTokens).toBeLessThanOrEqual(window);
    expect(calibrator.ratio(model)).toBeGreaterThanOrEqual((window - 1000 + 256) / ours);
    expect(r.prepared.report.reasons[0]).toMatch(/assumed at least \d+ tokens/);
  });

  it('aims under the limit the provider names when it is below the budget window', async () => {
    // The server counts as we do but allows a quarter of the request; the budget thinks 200k.
    const b = history();
    const model = MODEL.anthropic;
    const plain = await prepareRequest(b.items, { model, rungs: [] });
    const natural = countServerTokens('anthropic', plain.body);
    const window = Math.floor(plain.estimate / 4);
    server = await startProviderServer({
      contextWindow: window,
      countTokens: (p, body) => Math.ceil((countServerTokens(p, body) * plain.estimate) / natural),
    });
    const r = await sendWithCompaction(b.items, sender('anthropic', server), {
      model,
      cache: { lastCallAt: 0, now: 1 },
      request: { maxTokens: 1000 },
      budget: { window: 200_000, maxOutput: 1000, triggerAt: plain.estimate + 500 },
    });
    expect(server.requests.map((q) => q.status)).toEqual([400, 200]);
    expect(r.overflow?.limit).toBe(window);
    expect(server.requests[1]!.inputTokens).toBeLessThanOrEqual(window);
  });

  it('reports a second overflow as one, naming both counts and keeping the provider error as cause', async () => {
    server = await startProviderServer({ contextWindow: 10 });
    const b = history(3);
    const err = await sendWithCompaction(b.items, sender('gemini', server), {
      model: MODEL.gemini,
      wire: 'gemini',
      cache: { lastCallAt: 0, now: 1 },
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(server.requests.map((q) => q.status)).toEqual([400, 400]);
    expect(err?.message).toMatch(/still too long after compaction/);
    expect(err?.message).toContain(`${server.requests[1]!.inputTokens}`);
    expect(err?.message).toMatch(/exceeds the maximum number of tokens allowed \(10\)/);
    expect((err?.cause as Error | undefined)?.message).toMatch(/^400 /);
  });
});
