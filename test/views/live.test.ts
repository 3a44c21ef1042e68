/**
 * The wire views against the real providers. Skipped unless the key is set (no network in CI):
 * ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY; models overridable with GLYPHFOLD_LIVE_*_MODEL.
 * The fixture's reasoning comes from another family than the target, so no invented signature is
 * sent (a real provider would rightly reject it).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { hasReasoningIds, wireView } from '../../src/views/index.js';
import { agentRun, TOOLS } from './fixtures.js';

const env = process.env;
const request = (model: string) => ({ model, system: 'Answer in one word.', tools: TOOLS, maxTokens: 64 });

describe.skipIf(!env.ANTHROPIC_API_KEY)('live: Anthropic', () => {
  it('accepts the agent run', async () => {
    const model = env.GLYPHFOLD_LIVE_ANTHROPIC_MODEL ?? 'claude-haiku-4-5';
    const { body } = wireView('anthropic', agentRun('gemini'), request(model));
    const msg = await new Anthropic().messages.create(body);
    expect(msg.usage.input_tokens).toBeGreaterThan(0);
  });
});

describe.skipIf(!env.OPENAI_API_KEY)('live: OpenAI', () => {
  const model = env.GLYPHFOLD_LIVE_OPENAI_MODEL ?? 'gpt-4.1-mini';
  it('chat completions accepts the agent run', async () => {
    const { body } = wireView('openai-chat', agentRun('anthropic'), request(model));
    const c = await new OpenAI().chat.completions.create(body);
    expect(c.usage!.prompt_tokens).toBeGreaterThan(0);
  });
  it('responses accepts the agent run', async () => {
    const { body } = wireView('openai-responses', agentRun('anthropic'), request(model));
    if (!hasReasoningIds(body)) throw new Error('reasoning without its rs_ id');
    const r = await new OpenAI().responses.create(body);
    expect(r.usage!.input_tokens).toBeGreaterThan(0);
  });
});

describe.skipIf(!env.GEMINI_API_KEY)('live: Gemini', () => {
  it('accepts the agent run', async () => {
    const model = env.GLYPHFOLD_LIVE_GEMINI_MODEL ?? 'gemini-2.5-flash';
    const { body } = wireView('gemini', agentRun('anthropic'), request(model));
    const res = await fetch(
      `https://generativelanguage.googleapis.com/v1beta/models/${model}:generateContent`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': env.GEMINI_API_KEY! },
        body: JSON.stringify(body),
      },
    );
    expect(res.status, await res.clone().text()).toBe(200);
  });
});
