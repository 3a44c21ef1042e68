/**
 * The SDKs are optional peers over a tested range: `@anthropic-ai/sdk` 0.137+ and 1.x, `openai` 6.x
 * and 7.x (devDependencies `anthropic-sdk-0` and `openai-7` are those majors under other names). The
 * typed wire bodies go to each major's client with no cast, and each major's client is a summarizer
 * client: `npm run typecheck` compiles this file, and the calls reach the fake provider for real.
 */
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import OpenAI from 'openai';
import OpenAI7 from 'openai-7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicSummarizer, openaiSummarizer } from '../../src/compaction/summarize.js';
import { hasReasoningIds, wireView } from '../../src/views/index.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { agentRun, TOOLS } from './fixtures.js';

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer({ contextWindow: 200_000 });
});
afterAll(async () => {
  await server.close();
});

const request = { model: 'm', system: 'Be brief.', tools: TOOLS, maxTokens: 256 };
const SUMMARY = { system: 'Summarize.', user: 'A short conversation.', maxTokens: 64 };

/** The requests since `before`, as [provider, status]. */
const since = (before: number) => server.requests.slice(before).map((r) => [r.provider, r.status]);

describe('@anthropic-ai/sdk', () => {
  it('1.x takes the anthropic body and serves as a summarizer client', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const before = server.requests.length;
    const msg = await client.messages.create(wireView('anthropic', agentRun('anthropic'), request).body);
    expect(msg.usage.input_tokens).toBeGreaterThan(50);
    expect(await anthropicSummarizer({ model: 'claude-haiku-4-5', client }).complete(SUMMARY)).not.toBe('');
    expect(since(before)).toEqual([
      ['anthropic', 200],
      ['anthropic', 200],
    ]);
  });

  it('0.x takes the anthropic body and serves as a summarizer client', async () => {
    const client = new Anthropic0({ apiKey: 'k', baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const before = server.requests.length;
    const msg = await client.messages.create(wireView('anthropic', agentRun('anthropic'), request).body);
    expect(msg.usage.input_tokens).toBeGreaterThan(50);
    expect(await anthropicSummarizer({ model: 'claude-haiku-4-5', client }).complete(SUMMARY)).not.toBe('');
    expect(since(before)).toEqual([
      ['anthropic', 200],
      ['anthropic', 200],
    ]);
  });
});

const OPENAI_CALLS = [
  ['openai-chat', 200],
  ['openai-responses', 200],
  ['openai-chat', 200],
];

describe('openai', () => {
  it('6.x takes the chat and responses bodies and serves as a summarizer client', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL, maxRetries: 0 });
    const before = server.requests.length;
    const chat = await client.chat.completions.create(
      wireView('openai-chat', agentRun('openai'), request).body,
    );
    expect(chat.usage!.prompt_tokens).toBeGreaterThan(50);
    const body = wireView('openai-responses', agentRun('openai'), request).body;
    if (!hasReasoningIds(body)) throw new Error('the fixture keeps its rs_ ids');
    expect((await client.responses.create(body)).usage!.input_tokens).toBeGreaterThan(50);
    expect(await openaiSummarizer({ model: 'gpt-5-mini', client }).complete(SUMMARY)).not.toBe('');
    expect(since(before)).toEqual(OPENAI_CALLS);
  });

  it('7.x takes the chat and responses bodies and serves as a summarizer client', async () => {
    const client = new OpenAI7({ apiKey: 'k', baseURL: server.openaiBaseURL, maxRetries: 0 });
    const before = server.requests.length;
    const chat = await client.chat.completions.create(
      wireView('openai-chat', agentRun('openai'), request).body,
    );
    expect(chat.usage!.prompt_tokens).toBeGreaterThan(50);
    const body = wireView('openai-responses', agentRun('openai'), request).body;
    if (!hasReasoningIds(body)) throw new Error('the fixture keeps its rs_ ids');
    expect((await client.responses.create(body)).usage!.input_tokens).toBeGreaterThan(50);
    expect(await openaiSummarizer({ model: 'gpt-5-mini', client }).complete(SUMMARY)).not.toBe('');
    expect(since(before)).toEqual(OPENAI_CALLS);
  });
});
