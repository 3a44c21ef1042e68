/**
 * Provider responses → items: real SDK clients (and fetch for Gemini) against the fake provider on
 * 127.0.0.1, a reply with text and a tool call turned into items, the tool's result appended, and the
 * next request built from them accepted by the provider; reasoning keeps its provider and signatures.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicResponseItems,
  geminiResponseItems,
  openaiChatResponseItems,
  openaiResponsesItems,
} from '../../src/transcript/import/index.js';
import type { NewItem } from '../../src/transcript/items.js';
import { hasReasoningIds, wireView, type WireProvider } from '../../src/views/index.js';
import { startProviderServer, type ProviderServer } from '../helpers/provider-server.js';
import { PathBuilder, TOOLS } from '../views/fixtures.js';

let server: ProviderServer;
beforeAll(async () => {
  server = await startProviderServer({
    reply: () => ({
      text: 'Listing the files.',
      toolCalls: [{ id: 'call_ls_1', name: 'ls', input: { dir: '.' } }],
    }),
  });
});
afterAll(async () => {
  await server.close();
});

const request = { model: 'm', tools: TOOLS, maxTokens: 256 };

/** One round: send the path, turn the reply into items. */
async function reply(provider: WireProvider, b: PathBuilder): Promise<NewItem[]> {
  const view = wireView(provider, b.items, request);
  switch (view.provider) {
    case 'anthropic': {
      const c = new Anthropic({ apiKey: 'k', baseURL: server.anthropicBaseURL, maxRetries: 0 });
      return anthropicResponseItems(await c.messages.create(view.body));
    }
    case 'openai-chat': {
      const c = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL, maxRetries: 0 });
      return openaiChatResponseItems(await c.chat.completions.create(view.body));
    }
    case 'openai-responses': {
      const c = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL, maxRetries: 0 });
      if (!hasReasoningIds(view.body)) throw new Error('reasoning without ids');
      return openaiResponsesItems(await c.responses.create(view.body));
    }
    case 'gemini': {
      const res = await fetch(`${server.geminiBaseURL}/models/gemini-3-pro:generateContent`, {
        method: 'POST',
        body: JSON.stringify(view.body),
      });
      return geminiResponseItems((await res.json()) as Parameters<typeof geminiResponseItems>[0]);
    }
  }
}

describe.each(['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const)(
  '%s reply → items',
  (provider) => {
    it('gives the text and the tool call, and the next request with the result is accepted', async () => {
      const b = new PathBuilder().person('What is in this folder?');
      const items = await reply(provider, b);
      expect(items.map((i) => [i.kind, i.author])).toEqual([
        ['message', 'model'],
        ['tool_call', 'model'],
      ]);
      expect(items[0]).toMatchObject({ text: 'Listing the files.' });
      expect(items[1]).toMatchObject({ callId: 'call_ls_1', name: 'ls', input: { dir: '.' } });
      for (const item of items) b.add(item);
      b.add({
        kind: 'tool_result',
        author: 'machinery',
        callId: 'call_ls_1',
        name: 'ls',
        content: [{ type: 'text', text: 'a.ts\nb.ts' }],
      });
      b.person('Thanks.');
      const before = server.requests.length;
      await reply(provider, b);
      const sent = server.requests[before]!;
      expect(sent.problems).toEqual([]);
      expect(sent.status).toBe(200);
    });
  },
);

describe('reasoning keeps its provider and what must go back', () => {
  it('Anthropic thinking and redacted thinking', () => {
    const items = anthropicResponseItems({
      content: [
        { type: 'thinking', thinking: 'Check the folder first.', signature: 'sig-a' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Done.' },
      ],
    });
    expect(items.filter((i) => i.kind === 'reasoning')).toEqual([
      expect.objectContaining({ provider: 'anthropic', text: 'Check the folder first.', signature: 'sig-a' }),
      expect.objectContaining({ provider: 'anthropic', encrypted: 'opaque' }),
    ]);
  });

  it('OpenAI Responses reasoning with its rs_ id and encrypted content, sent back as it came', () => {
    const items = openaiResponsesItems({
      output: [
        {
          type: 'reasoning',
          id: 'rs_123',
          summary: [{ type: 'summary_text', text: 'Thinking about files.' }],
          encrypted_content: 'enc',
        },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'ls', arguments: '{}' },
      ],
    });
    expect(items[0]).toMatchObject({
      kind: 'reasoning',
      provider: 'openai',
      signature: 'rs_123',
      encrypted: 'enc',
    });
    const b = new PathBuilder().person('Go.');
    for (const item of items) b.add(item);
    b.add({
      kind: 'tool_result',
      author: 'machinery',
      callId: 'call_1',
      name: 'ls',
      content: [{ type: 'text', text: 'x' }],
    });
    const body = wireView('openai-responses', b.items, request).body;
    expect(body.input[1]).toEqual({
      type: 'reasoning',
      id: 'rs_123',
      summary: [{ type: 'summary_text', text: 'Thinking about files.' }],
      encrypted_content: 'enc',
    });
  });

  it('Gemini thoughts and thought signatures', () => {
    const items = geminiResponseItems({
      candidates: [
        {
          content: {
            parts: [
              { text: 'Plan.', thought: true, thoughtSignature: 'ts-1' },
              { functionCall: { name: 'ls', args: { dir: '.' } }, thoughtSignature: 'ts-2' },
            ],
          },
        },
      ],
    });
    expect(items).toEqual([
      { kind: 'reasoning', author: 'model', text: 'Plan.', provider: 'gemini', signature: 'ts-1' },
      {
        kind: 'tool_call',
        author: 'model',
        callId: 'gemini-call-1',
        name: 'ls',
        input: { dir: '.' },
        signature: 'ts-2',
      },
    ]);
  });

  it('bad input is named', () => {
    expect(() => anthropicResponseItems({ content: null as unknown as unknown[] })).toThrow(
      /anthropicResponseItems: expected message.content \(an array\), found null/,
    );
    expect(() => openaiChatResponseItems({ choices: [] })).toThrow(/expected choices\[0\]\.message/);
    expect(() => geminiResponseItems({ candidates: [{ content: { parts: [{ nope: 1 }] } }] })).toThrow(
      /part 0 has none of text, thought, functionCall \(found nope\)/,
    );
  });
});
