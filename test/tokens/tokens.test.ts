import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Calibrator, estimateTokens } from '../../src/tokens/index.js';
import { imageTokens, resolveProfile } from '../../src/providers/index.js';
import type { Item } from '../../src/transcript/items.js';
import { hasReasoningIds, wireView } from '../../src/views/index.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { agentRun, PathBuilder, png, TOOLS } from '../views/fixtures.js';

const claudeImages = (w: number, h: number): number => Math.ceil(w / 28) * Math.ceil(h / 28);

describe('estimateTokens', () => {
  it('counts text, images through the given rule, and breaks down by author and kind', () => {
    const path = agentRun('anthropic');
    const e = estimateTokens(
      'anthropic',
      path,
      { model: 'm', system: 'S'.repeat(400), tools: TOOLS },
      { imageTokens: claudeImages },
    );
    // Two images: 56x28 (2 patches) and 84x56 (3x2 patches).
    expect(e.imageCount).toBe(2);
    expect(e.images).toBe(2 + 6);
    expect(e.ratio).toBe(1);
    expect(e.total).toBe(e.raw);
    const sum = e.rows.reduce((s, r) => s + r.tokens, 0);
    expect(Math.abs(sum - e.total)).toBeLessThanOrEqual(e.rows.length);
    const system = e.rows.find((r) => r.author === 'instructions' && r.kind === 'system')!;
    expect(system.tokens).toBeGreaterThanOrEqual(100);
    const results = e.rows.find((r) => r.author === 'machinery' && r.kind === 'tool_result')!;
    expect(results.items).toBe(4);
    expect(e.rows.map((r) => r.tokens)).toEqual([...e.rows.map((r) => r.tokens)].sort((a, b) => b - a));
    // Per item: the screenshot's result costs its text plus its image; items not sent are absent.
    const shot = path.find((i) => i.kind === 'tool_result' && i.callId === 'call_shot')!;
    expect(e.perItem.get(shot.id)).toBeGreaterThanOrEqual(6);
    expect(e.perItem.has(path.find((i) => i.kind === 'compaction')!.id)).toBe(false);
    const perItemSum = [...e.perItem.values()].reduce((a, b) => a + b, 0);
    // Items plus 4 tokens per turn make the total (each item rounded up on its own).
    const turns = (
      wireView('anthropic', path, { model: 'm', system: 'S'.repeat(400), tools: TOOLS }).body
        .messages as unknown[]
    ).length;
    expect(perItemSum - (e.total - 4 * turns)).toBeGreaterThanOrEqual(0);
    expect(perItemSum - (e.total - 4 * turns)).toBeLessThanOrEqual(e.perItem.size);
  });

  it('counts what the view sends: foreign reasoning costs nothing', () => {
    const path = new PathBuilder()
      .person('hi')
      .add({
        kind: 'reasoning',
        author: 'model',
        text: 'x'.repeat(4000),
        provider: 'anthropic',
        signature: 's',
      })
      .model('ok').items;
    const same = estimateTokens('anthropic', path, { model: 'm' });
    const other = estimateTokens('openai-chat', path, { model: 'm' });
    expect(same.raw - other.raw).toBeGreaterThanOrEqual(1000);
  });

  it('applies a calibrator and rejects a bad chars-per-token', () => {
    const cal = new Calibrator();
    cal.observe('m', 100, 130);
    const path = agentRun();
    const e = estimateTokens('openai-chat', path, { model: 'm' }, { calibrator: cal });
    expect(e.ratio).toBeCloseTo(1.3);
    expect(e.total).toBe(Math.ceil(e.raw * 1.3));
    expect(() => estimateTokens('gemini', path, { model: 'm' }, { charsPerToken: 0 })).toThrow(
      /charsPerToken must be positive, found 0/,
    );
  });
});

describe('estimateTokens with profiles', () => {
  it('counts images by the profile rule by default', () => {
    const profile = resolveProfile('claude-opus-4-7').profile;
    const e = estimateTokens('anthropic', agentRun('anthropic'), { model: 'claude-opus-4-7', profile });
    // 56x28 → 2x1 patches of 28 px, 84x56 → 3x2.
    expect(e.images).toBe(imageTokens(profile, 56, 28) + imageTokens(profile, 84, 56));
    expect(e.images).toBe(8);
  });
});

describe('Calibrator', () => {
  it('learns from an overflow error that carries the measured count', async () => {
    const server = await startProviderServer({ contextWindow: 50 });
    try {
      const client = new Anthropic({ apiKey: 'k', baseURL: server.anthropicBaseURL, maxRetries: 0 });
      const path = new PathBuilder().person(sentence(rng(1), 300)).items;
      const estimate = estimateTokens('anthropic', path, { model: 'm' });
      const error = await client.messages
        .create(wireView('anthropic', path, { model: 'm' }).body)
        .catch((e: unknown) => e);
      const cal = new Calibrator();
      const measured = cal.observeOverflow('m', estimate.raw, error);
      expect(measured).toBe(server.requests[0]!.inputTokens);
      expect(cal.apply('m', estimate.raw)).toBe(measured);
      expect(cal.observeOverflow('m', estimate.raw, new Error('rate limited'))).toBeUndefined();
      expect(cal.samples('m')).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('round-trips through plain JSON and names what is wrong in bad state', () => {
    const cal = new Calibrator({ alpha: 0.25 });
    cal.observe('b-model', 100, 120);
    cal.observe('a-model', 200, 100);
    const json = JSON.parse(JSON.stringify(cal)) as unknown;
    expect(json).toEqual({
      version: 1,
      alpha: 0.25,
      models: { 'a-model': { ratio: 0.5, samples: 1 }, 'b-model': { ratio: 1.2, samples: 1 } },
    });
    const back = Calibrator.fromJSON(json);
    expect(back.ratio('b-model')).toBe(1.2);
    expect(back.apply('a-model', 1000)).toBe(500);
    expect(() => Calibrator.fromJSON({ version: 2 })).toThrow(/expected version 1, found 2/);
    expect(() =>
      Calibrator.fromJSON({ version: 1, alpha: 0.5, models: { x: { ratio: -1, samples: 1 } } }),
    ).toThrow(/models\['x'\]\.ratio must be a positive number, found -1/);
    expect(() => cal.observe('m', 0, 5)).toThrow(/estimated must be a positive number, found 0/);
  });
});

// ---------------------------------------------------------------- convergence against the fake provider

/** Deterministic PRNG (mulberry32) so the conversation is the same on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'the a function returns value error file test build should because when config module import export type interface server request response token window budget'.split(
    ' ',
  );

function sentence(r: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = WORDS[Math.floor(r() * WORDS.length)]!;
    out.push(
      r() < 0.15 ? `${w}(${Math.floor(r() * 1000)});` : r() < 0.1 ? `${w}.ts:${Math.floor(r() * 300)}` : w,
    );
  }
  return out.join(' ');
}

describe('calibration converges to the provider’s reported counts', () => {
  let server: ProviderServer;
  beforeAll(async () => {
    server = await startProviderServer();
  });
  afterAll(async () => {
    await server.close();
  });

  for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const) {
    it(`${provider}: within 2% from the seventh turn on`, async () => {
      const anthropic = new Anthropic({ apiKey: 'k', baseURL: server.anthropicBaseURL, maxRetries: 0 });
      const openai = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL, maxRetries: 0 });
      const r = rng(42);
      const cal = new Calibrator();
      const b = new PathBuilder();
      const request = {
        model: `model-${provider}`,
        system: 'You are a coding agent. Be brief.',
        tools: TOOLS,
      };
      const errors: number[] = [];
      let firstError = 0;
      for (let turn = 0; turn < 20; turn++) {
        b.person(sentence(r, 10 + Math.floor(r() * 40)));
        if (turn % 3 === 1) {
          b.call(`call_${turn}`, 'read_file', { path: `src/f${turn}.ts` });
          b.result(
            `call_${turn}`,
            'read_file',
            sentence(r, 50 + Math.floor(r() * 300)),
            turn % 6 === 1 ? { images: [png(280, 140)] } : {},
          );
        }
        const path: Item[] = b.items;
        const estimate = estimateTokens(provider, path, request, {
          imageTokens:
            provider === 'anthropic' ? claudeImages : provider === 'gemini' ? () => 258 : openaiTiles,
          calibrator: cal,
        });
        const view = wireView(provider, path, request);
        let reported: number;
        if (view.provider === 'anthropic')
          reported = (await anthropic.messages.create(view.body)).usage.input_tokens;
        else if (view.provider === 'openai-chat')
          reported = (await openai.chat.completions.create(view.body)).usage!.prompt_tokens;
        else if (view.provider === 'openai-responses') {
          if (!hasReasoningIds(view.body)) throw new Error('reasoning without its rs_ id');
          reported = (await openai.responses.create(view.body)).usage!.input_tokens;
        } else {
          const res = await fetch(`${server.geminiBaseURL}/models/${request.model}:generateContent`, {
            method: 'POST',
            body: JSON.stringify(view.body),
          });
          reported = ((await res.json()) as { usageMetadata: { promptTokenCount: number } }).usageMetadata
            .promptTokenCount;
        }
        const error = Math.abs(estimate.total - reported) / reported;
        if (turn === 0) firstError = error;
        errors.push(error);
        cal.observe(request.model, estimate.raw, reported);
        b.model(sentence(r, 5 + Math.floor(r() * 60)));
      }
      // The raw estimate is off by more than the tolerance (the server counts differently) …
      expect(firstError).toBeGreaterThan(0.02);
      // … and once calibrated (six turns observed), every later turn lands within 2%.
      expect(Math.max(...errors.slice(6))).toBeLessThan(0.02);
    });
  }
});

function openaiTiles(w: number, h: number): number {
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}
