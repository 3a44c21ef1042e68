import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOverflowError, resolveProfile } from '../../src/providers/index.js';

/** Error bodies exactly as PROVIDERS.md quotes them, served by a local HTTP server per path. */
const BODIES: Record<string, { status: number; body: unknown }> = {
  '/anthropic-long/v1/messages': {
    status: 400,
    body: {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 200251 tokens > 200000 maximum' },
    },
  },
  '/anthropic-maxtokens/v1/messages': {
    status: 400,
    body: {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message:
          'input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again',
      },
    },
  },
  '/openai/chat/completions': {
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens. Please reduce the length of the messages.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
  },
  '/openai/responses': {
    status: 400,
    body: {
      error: {
        message:
          'Your input exceeds the context window of this model. Please adjust your input and try again.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      },
    },
  },
  '/gemini/v1beta/models/gemini-2.5-pro:generateContent': {
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).',
        status: 'INVALID_ARGUMENT',
      },
    },
  },
  '/ratelimit/v1/messages': {
    status: 429,
    body: {
      type: 'error',
      error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit' },
    },
  },
};

let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const hit = BODIES[(req.url ?? '').split('?')[0]!];
      res.writeHead(hit?.status ?? 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(hit?.body ?? { error: { message: 'not found' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function thrown(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

const anthropic = (path: string) =>
  new Anthropic({ apiKey: 'test', baseURL: `${base}${path}`, maxRetries: 0 });
const openai = () => new OpenAI({ apiKey: 'test', baseURL: `${base}/openai`, maxRetries: 0 });
const ask = {
  model: 'claude-opus-4-7',
  max_tokens: 20000,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

describe('parseOverflowError with the real SDK clients', () => {
  it('Anthropic: prompt is too long', async () => {
    const err = await thrown(anthropic('/anthropic-long').messages.create(ask));
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(parseOverflowError(err)).toMatchObject({
      provider: 'anthropic',
      measuredTokens: 200251,
      limit: 200000,
      status: 400,
    });
  });

  it('Anthropic: input length and max_tokens exceed context limit', async () => {
    const err = await thrown(anthropic('/anthropic-maxtokens').messages.create(ask));
    expect(parseOverflowError(err)).toMatchObject({
      provider: 'anthropic',
      measuredTokens: 189136,
      requestedOutput: 20000,
      limit: 204648,
    });
  });

  it('OpenAI Chat Completions: maximum context length', async () => {
    const err = await thrown(
      openai().chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(parseOverflowError(err)).toMatchObject({
      provider: 'openai',
      measuredTokens: 202868,
      limit: 128000,
      status: 400,
    });
  });

  it('OpenAI Responses: context_length_exceeded without numbers', async () => {
    const err = await thrown(openai().responses.create({ model: 'gpt-5.5', input: 'hi' }));
    const info = parseOverflowError(err);
    expect(info).toMatchObject({ provider: 'openai', status: 400 });
    expect(info?.measuredTokens).toBeUndefined();
  });

  it('Gemini: the input token count exceeds the maximum (raw body, and an Error carrying it)', async () => {
    const res = await fetch(`${base}/gemini/v1beta/models/gemini-2.5-pro:generateContent`, {
      method: 'POST',
      body: '{}',
    });
    const body: unknown = await res.json();
    expect(parseOverflowError(body)).toMatchObject({
      provider: 'gemini',
      measuredTokens: 1200293,
      limit: 1048576,
      status: 400,
    });
    // The Gemini SDK throws an Error whose message is the JSON body.
    const err = Object.assign(new Error(JSON.stringify(body)), { status: 400 });
    expect(parseOverflowError(err)).toMatchObject({ provider: 'gemini', measuredTokens: 1200293 });
  });

  it('ignores other errors', async () => {
    const err = await thrown(anthropic('/ratelimit').messages.create(ask));
    expect(parseOverflowError(err)).toBeUndefined();
    expect(parseOverflowError(new Error('socket hang up'))).toBeUndefined();
    expect(parseOverflowError(undefined)).toBeUndefined();
    expect(parseOverflowError(42)).toBeUndefined();
  });

  it('reads plain strings with thousands separators, and a profile’s own patterns only', () => {
    expect(parseOverflowError('prompt is too long: 1,000,251 tokens > 1,000,000 maximum')).toMatchObject({
      measuredTokens: 1000251,
      limit: 1000000,
    });
    const gemini = resolveProfile('gemini-2.5-pro').profile;
    expect(parseOverflowError('prompt is too long: 5 tokens > 4 maximum', gemini)).toBeUndefined();
  });
});
