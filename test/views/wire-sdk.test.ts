/**
 * Every wire view goes through the real SDK clients (Gemini: plain fetch) to the fake provider, which
 * validates the body against the documented shape and the provider's pairing rules.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/transcript/items.js';
import { hasReasoningIds, wireView, type WireProvider, type WireResult } from '../../src/views/index.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { agentRun, PathBuilder, TOOLS } from './fixtures.js';

let server: ProviderServer;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  server = await startProviderServer();
  anthropic = new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseURL, maxRetries: 0 });
  openai = new OpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

const request = {
  model: 'test-model',
  system: 'You are a careful coding agent.',
  memory: 'Prefers small diffs.',
  tools: TOOLS,
  maxTokens: 1024,
};

/** Sends a body with the real client for its provider; returns the recorded request and the reply. */
async function send(
  view: WireResult,
): Promise<{ recorded: (typeof server.requests)[number]; inputTokens: number }> {
  const before = server.requests.length;
  let inputTokens: number;
  // The typed bodies go to the SDKs as they are: no cast (that is what the body types are for).
  switch (view.provider) {
    case 'anthropic': {
      const msg = await anthropic.messages.create(view.body);
      inputTokens = msg.usage.input_tokens;
      break;
    }
    case 'openai-chat': {
      const c = await openai.chat.completions.create(view.body);
      inputTokens = c.usage!.prompt_tokens;
      break;
    }
    case 'openai-responses': {
      if (!hasReasoningIds(view.body)) throw new Error('reasoning without its rs_ id: not for the SDK');
      const r = await openai.responses.create(view.body);
      inputTokens = r.usage!.input_tokens;
      break;
    }
    case 'gemini': {
      const body = view.body;
      const res = await fetch(`${server.geminiBaseURL}/models/gemini-3-pro:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'test-key' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as {
        usageMetadata?: { promptTokenCount: number };
        error?: { message: string };
      };
      if (!res.ok) throw new Error(`gemini ${res.status}: ${json.error?.message}`);
      inputTokens = json.usageMetadata!.promptTokenCount;
      break;
    }
  }
  expect(server.requests.length).toBe(before + 1);
  return { recorded: server.requests[before]!, inputTokens };
}

const FAMILY = {
  anthropic: 'anthropic',
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  gemini: 'gemini',
} as const;
const PROVIDERS: WireProvider[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];

describe.each(PROVIDERS)('%s wire view through the real client', (provider) => {
  it('sends the agent run fixture with the documented shape and gets usage back', async () => {
    const path = agentRun(FAMILY[provider]);
    const view = wireView(provider, path, request);
    const { body, repairs } = view;
    expect(repairs).toEqual([]);
    const { recorded, inputTokens } = await send(view);
    expect(recorded.problems).toEqual([]);
    expect(recorded.status).toBe(200);
    // The body arrived byte-for-byte as the view built it (the SDK adds nothing).
    expect(recorded.body).toEqual(JSON.parse(JSON.stringify(body)));
    expect(inputTokens).toBe(recorded.inputTokens);
    expect(inputTokens).toBeGreaterThan(50);
  });

  it('repairs a cut path (orphan result, unanswered call) into one the provider accepts', async () => {
    const full = agentRun(FAMILY[provider]);
    // Cut the head off in the middle of the parallel calls, and drop the last tool result.
    const cutAt = full.findIndex((i) => i.kind === 'tool_call' && i.callId === 'call_read_2');
    const lastResult = full.findIndex((i) => i.kind === 'tool_result' && i.callId === 'call_run');
    const path = full.slice(cutAt).filter((_, k) => k !== lastResult - cutAt);
    const view = wireView(provider, path, request);
    const kinds = view.repairs.map((r) => r.kind);
    expect(kinds).toContain('dropped_orphan_result'); // call_read_1's result lost its call
    expect(kinds).toContain('synthesized_result'); // call_run has no result
    const { recorded } = await send(view);
    expect(recorded.problems).toEqual([]);
  });

  it('the unrepaired body would be rejected by the provider (the validator is not vacuous)', async () => {
    const full = agentRun(FAMILY[provider]);
    const lastResult = full.findIndex((i) => i.kind === 'tool_result' && i.callId === 'call_run');
    const path = full.filter((_, k) => k !== lastResult);
    const view = wireView(provider, path, request);
    // Remove the synthesized result from the body by hand: the fake provider must refuse it.
    await expect(send(stripSynthetic(view))).rejects.toThrow(/tool|function/i);
  });
});

/** The same result with the synthesized tool result taken out of its body (a copy). */
function stripSynthetic(view: WireResult): WireResult {
  const isSynthetic = (v: unknown): boolean => JSON.stringify(v).includes('No result recorded');
  switch (view.provider) {
    case 'anthropic': {
      const messages = view.body.messages
        .map((m) => ({ ...m, content: m.content.filter((b) => !isSynthetic(b)) }))
        .filter((m) => m.content.length > 0);
      return { ...view, body: { ...view.body, messages } };
    }
    case 'gemini': {
      const contents = view.body.contents
        .map((c) => ({ ...c, parts: c.parts.filter((p) => !isSynthetic(p)) }))
        .filter((c) => c.parts.length > 0);
      return { ...view, body: { ...view.body, contents } };
    }
    case 'openai-chat':
      return { ...view, body: { ...view.body, messages: view.body.messages.filter((m) => !isSynthetic(m)) } };
    case 'openai-responses':
      return { ...view, body: { ...view.body, input: view.body.input.filter((i) => !isSynthetic(i)) } };
  }
}

describe('overflow errors through the real clients', () => {
  it('each provider answers an over-long request with its exact overflow error and status', async () => {
    const small = await startProviderServer({ contextWindow: 40 });
    try {
      const path: Item[] = new PathBuilder().person('word '.repeat(200)).items;
      const a = new Anthropic({ apiKey: 'k', baseURL: small.anthropicBaseURL, maxRetries: 0 });
      const o = new OpenAI({ apiKey: 'k', baseURL: small.openaiBaseURL, maxRetries: 0 });
      const err1 = await a.messages
        .create(wireView('anthropic', path, { model: 'm' }).body)
        .catch((e: unknown) => e);
      expect(err1).toBeInstanceOf(Anthropic.BadRequestError);
      expect((err1 as InstanceType<typeof Anthropic.BadRequestError>).status).toBe(400);
      expect(String((err1 as Error).message)).toMatch(/prompt is too long: \d+ tokens > 40 maximum/);
      const err2 = await o.chat.completions
        .create(wireView('openai-chat', path, { model: 'm' }).body)
        .catch((e: unknown) => e);
      expect(err2).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err2 as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
      expect(String((err2 as Error).message)).toMatch(
        /maximum context length is 40 tokens\. However, your messages resulted in \d+ tokens/,
      );
      const responsesBody = wireView('openai-responses', path, { model: 'm' }).body;
      if (!hasReasoningIds(responsesBody))
        throw new Error('the path has no reasoning: ids cannot be missing');
      const err3 = await o.responses.create(responsesBody).catch((e: unknown) => e);
      expect((err3 as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('context_length_exceeded');
      expect(String((err3 as Error).message)).toMatch(/exceeds the context window/);
      const res = await fetch(`${small.geminiBaseURL}/models/gemini-3-pro:generateContent`, {
        method: 'POST',
        body: JSON.stringify(wireView('gemini', path, { model: 'gemini-3-pro' }).body),
      });
      expect(res.status).toBe(400);
      const json = (await res.json()) as { error: { status: string; message: string } };
      expect(json.error.status).toBe('INVALID_ARGUMENT');
      expect(json.error.message).toMatch(
        /^The input token count \(\d+\) exceeds the maximum number of tokens allowed \(40\)\.$/,
      );
    } finally {
      await small.close();
    }
  });
});
