/**
 * A fake provider on 127.0.0.1 for tests: it speaks the four wire formats well enough for the real
 * `@anthropic-ai/sdk` and `openai` clients (and plain fetch for Gemini), records every request body,
 * rejects malformed or unpaired bodies with the provider's own 400 shape, counts input tokens by its
 * own rule (deliberately not glyphfold's estimate), reports them as usage, and answers requests over
 * its context window with the exact overflow errors from PROVIDERS.md.
 *
 *   const server = await startProviderServer({ contextWindow: 200_000 });
 *   const anthropic = new Anthropic({ apiKey: 'test', baseURL: server.anthropicBaseURL });
 *   const openai = new OpenAI({ apiKey: 'test', baseURL: server.openaiBaseURL });
 *   await fetch(`${server.geminiBaseURL}/models/gemini-3-pro:generateContent`, { method: 'POST', body });
 *   server.requests[0].body; server.requests[0].inputTokens;
 *   await server.close();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VALIDATORS } from './wire-shapes.js';

export type FakeProvider = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

export interface RecordedRequest {
  provider: FakeProvider;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The server's own count of the request's input tokens. */
  inputTokens: number;
  /** HTTP status the server answered with. */
  status: number;
  /** Shape problems found (the request was answered 400 when there were any and validation is on). */
  problems: string[];
}

/** What the model "says" back; default: a short text. */
export interface FakeReply {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; input: Record<string, unknown> }>;
  outputTokens?: number;
}

export interface ProviderServerOptions {
  /** Input tokens above this get the provider's overflow error. Default: no limit. */
  contextWindow?: number;
  /** The server's token rule; default `countServerTokens`. */
  countTokens?: (provider: FakeProvider, body: Record<string, unknown>) => number;
  /** Reject bodies that do not have the documented shape (default true). */
  validate?: boolean;
  reply?: (request: RecordedRequest) => FakeReply;
}

export interface ProviderServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** For `new Anthropic({ baseURL })` (the SDK appends /v1/messages). */
  anthropicBaseURL: string;
  /** For `new OpenAI({ baseURL })` (the SDK appends /chat/completions, /responses). */
  openaiBaseURL: string;
  /** Gemini REST root: POST `${geminiBaseURL}/models/{model}:generateContent`. */
  geminiBaseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** The exact overflow error each provider answers (status and JSON body), from PROVIDERS.md. */
export function overflowError(
  provider: FakeProvider,
  tokens: number,
  limit: number,
): { status: number; body: unknown } {
  switch (provider) {
    case 'anthropic':
      return {
        status: 400,
        body: {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
          },
        },
      };
    case 'openai-chat':
      return {
        status: 400,
        body: {
          error: {
            message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        },
      };
    case 'openai-responses':
      return {
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
      };
    case 'gemini':
      return {
        status: 400,
        body: {
          error: {
            code: 400,
            message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`,
            status: 'INVALID_ARGUMENT',
          },
        },
      };
  }
}

function invalidRequest(provider: FakeProvider, problems: string[]): { status: number; body: unknown } {
  const message = problems.slice(0, 5).join('; ');
  if (provider === 'anthropic')
    return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } };
  if (provider === 'gemini')
    return { status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } };
  return {
    status: 400,
    body: { error: { message, type: 'invalid_request_error', param: null, code: null } },
  };
}

// Fields whose strings are not read as text by the model (ids, enums, opaque bytes).
const OPAQUE = new Set([
  'model',
  'type',
  'role',
  'id',
  'call_id',
  'tool_use_id',
  'tool_call_id',
  'media_type',
  'mimeType',
  'detail',
  'data',
  'url',
  'image_url',
  'signature',
  'thoughtSignature',
  'encrypted_content',
  'previous_response_id',
]);

function imageTokensFor(provider: FakeProvider, base64: string): number {
  // Size from the PNG header when there is one; other formats count as a 512x512 image.
  const head = Buffer.from(base64.slice(0, 44), 'base64');
  const png = head.length >= 24 && head.readUInt32BE(0) === 0x89504e47;
  const w = png ? head.readUInt32BE(16) : 512;
  const h = png ? head.readUInt32BE(20) : 512;
  if (provider === 'anthropic') return Math.ceil(w / 28) * Math.ceil(h / 28);
  if (provider === 'gemini') return 258;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/**
 * The server's "real" count: word pieces (runs of letters split every 6 characters, digit groups of
 * up to 3, each other symbol alone) over every model-readable string, images by each provider's rule,
 * 3 tokens per message or input item. Different from glyphfold's characters/4 on purpose.
 */
export function countServerTokens(provider: FakeProvider, body: object): number {
  let tokens = 0;
  const walk = (v: unknown, key: string): void => {
    if (typeof v === 'string') {
      if (key === 'data' || key === 'image_url' || key === 'url') {
        const m = /^data:[^;]+;base64,(.*)$/.exec(v);
        const b64 = m ? m[1]! : key === 'data' ? v : '';
        if (b64) tokens += imageTokensFor(provider, b64);
        return;
      }
      if (OPAQUE.has(key)) return;
      for (const piece of v.match(/[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]/g) ?? [])
        tokens += /^[A-Za-z]/.test(piece) ? Math.ceil(piece.length / 6) : 1;
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) walk(x, key);
      return;
    }
    if (v !== null && typeof v === 'object') {
      if (key === 'messages' || key === 'contents' || key === 'input') tokens += 3;
      for (const [k, x] of Object.entries(v)) walk(x, k);
    }
  };
  for (const [k, v] of Object.entries(body)) {
    if (
      k === 'max_tokens' ||
      k === 'max_completion_tokens' ||
      k === 'max_output_tokens' ||
      k === 'generationConfig'
    )
      continue;
    walk(v, k);
  }
  return tokens;
}

function route(method: string, path: string): { provider: FakeProvider; model?: string } | undefined {
  if (method !== 'POST') return undefined;
  if (path === '/v1/messages') return { provider: 'anthropic' };
  if (path === '/v1/chat/completions') return { provider: 'openai-chat' };
  if (path === '/v1/responses') return { provider: 'openai-responses' };
  const g = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(path);
  if (g) return { provider: 'gemini', model: decodeURIComponent(g[1]!) };
  return undefined;
}

let counter = 0;
const nextId = (prefix: string): string => `${prefix}${(++counter).toString(36).padStart(6, '0')}`;

function success(
  provider: FakeProvider,
  body: Record<string, unknown>,
  model: string,
  input: number,
  reply: FakeReply,
): unknown {
  const text = reply.text ?? 'ok';
  const output = reply.outputTokens ?? 5;
  const calls = reply.toolCalls ?? [];
  switch (provider) {
    case 'anthropic':
      return {
        id: nextId('msg_'),
        type: 'message',
        role: 'assistant',
        model,
        content: [
          ...(text ? [{ type: 'text', text }] : []),
          ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input })),
        ],
        stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: input,
          output_tokens: output,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      };
    case 'openai-chat':
      return {
        id: nextId('chatcmpl-'),
        object: 'chat.completion',
        created: 1_764_000_000,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text || null,
              refusal: null,
              ...(calls.length > 0
                ? {
                    tool_calls: calls.map((c) => ({
                      id: c.id,
                      type: 'function',
                      function: { name: c.name, arguments: JSON.stringify(c.input) },
                    })),
                  }
                : {}),
            },
            logprobs: null,
            finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      };
    case 'openai-responses':
      return {
        id: nextId('resp_'),
        object: 'response',
        created_at: 1_764_000_000,
        status: 'completed',
        model,
        instructions: body.instructions ?? null,
        previous_response_id: body.previous_response_id ?? null,
        output: [
          ...(text
            ? [
                {
                  type: 'message',
                  id: nextId('msg_'),
                  status: 'completed',
                  role: 'assistant',
                  content: [{ type: 'output_text', text, annotations: [] }],
                },
              ]
            : []),
          ...calls.map((c) => ({
            type: 'function_call',
            id: nextId('fc_'),
            call_id: c.id,
            name: c.name,
            arguments: JSON.stringify(c.input),
            status: 'completed',
          })),
        ],
        parallel_tool_calls: true,
        tool_choice: 'auto',
        tools: body.tools ?? [],
        usage: {
          input_tokens: input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: input + output,
        },
      };
    case 'gemini':
      return {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [
                ...(text ? [{ text }] : []),
                ...calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.input } })),
              ],
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: input,
          candidatesTokenCount: output,
          totalTokenCount: input + output,
        },
        modelVersion: model,
        responseId: nextId('gem_'),
      };
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': nextId('req_'),
  });
  res.end(text);
}

/** Starts the fake provider on an ephemeral port of 127.0.0.1. */
export async function startProviderServer(options: ProviderServerOptions = {}): Promise<ProviderServer> {
  const requests: RecordedRequest[] = [];
  const count = options.countTokens ?? countServerTokens;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const r = route(req.method ?? 'GET', path);
      if (!r) return send(res, 404, { error: { message: `no route ${req.method} ${path}` } });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch (err) {
        return send(res, 400, invalidRequest(r.provider, [`body is not JSON: ${String(err)}`]).body);
      }
      const problems = VALIDATORS[r.provider](body);
      const inputTokens = count(r.provider, body);
      const rec: RecordedRequest = {
        provider: r.provider,
        path,
        headers: req.headers,
        body,
        inputTokens,
        status: 200,
        problems,
      };
      requests.push(rec);
      const model = r.model ?? String(body.model);
      let answer: { status: number; body: unknown };
      if ((options.validate ?? true) && problems.length > 0) answer = invalidRequest(r.provider, problems);
      else if (options.contextWindow !== undefined && inputTokens > options.contextWindow)
        answer = overflowError(r.provider, inputTokens, options.contextWindow);
      else
        answer = {
          status: 200,
          body: success(r.provider, body, model, inputTokens, options.reply?.(rec) ?? {}),
        };
      rec.status = answer.status;
      send(res, answer.status, answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    geminiBaseURL: `${url}/v1beta`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
