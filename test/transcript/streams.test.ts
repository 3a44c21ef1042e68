/**
 * Raw stream events → items. The real `@anthropic-ai/sdk` and `openai` clients stream (`stream: true`)
 * from a server on 127.0.0.1 that writes SSE event sequences shaped as the providers document them,
 * cut into pieces on the socket; Gemini's `streamGenerateContent?alt=sse` is read with fetch. Each fold
 * must give exactly the items the non-streaming helper gives for the same reply: the SDK's own
 * accumulation of the same stream (`finalMessage()`, `finalChatCompletion()`, `finalResponse()`) and
 * the reply as the non-streaming API returns it. Then: the same reply cut at other points (seeded)
 * gives the same items; events out of order, unknown or after the end are named; a cut stream is an
 * `IncompleteStreamError`, or with `{ partial: true }` what arrived.
 */
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import Anthropic from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent as RawMessageStreamEvent0 } from 'anthropic-sdk-0/resources/messages';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { ChatCompletionChunk as ChatCompletionChunk7 } from 'openai-7/resources/chat/completions';
import type { ResponseStreamEvent as ResponseStreamEvent7 } from 'openai-7/resources/responses/responses';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicResponseItems,
  anthropicStream,
  geminiResponseItems,
  geminiStream,
  IncompleteStreamError,
  openaiChatResponseItems,
  openaiChatStream,
  openaiResponsesItems,
  openaiResponsesStream,
  StreamEventError,
  type AnthropicStreamEvent,
  type GeminiStreamChunk,
  type OpenAIChatChunk,
  type OpenAIResponsesStreamEvent,
} from '../../src/transcript/import/index.js';
import type { NewItem } from '../../src/transcript/items.js';
import {
  anthropicEvents,
  anthropicMessage,
  chatChunks,
  chatCompletion,
  geminiChunks,
  geminiResponse,
  responsesEvents,
  responsesResponse,
  seededByteCuts,
  seededCutter,
  sse,
  type Block,
} from '../helpers/stream-events.js';

// Both majors of each SDK yield events the folds take, without a cast (checked by the type-check).
type Fits<T, U> = [T] extends [U] ? true : never;
const _fits: [
  Fits<RawMessageStreamEvent, AnthropicStreamEvent>,
  Fits<RawMessageStreamEvent0, AnthropicStreamEvent>,
  Fits<ChatCompletionChunk, OpenAIChatChunk>,
  Fits<ChatCompletionChunk7, OpenAIChatChunk>,
  Fits<ResponseStreamEvent, OpenAIResponsesStreamEvent>,
  Fits<ResponseStreamEvent7, OpenAIResponsesStreamEvent>,
] = [true, true, true, true, true, true];
void _fits;

/** A reply with everything that streams: thinking, redacted thinking, text (not all ASCII), two calls. */
const BLOCKS: Block[] = [
  {
    kind: 'thinking',
    text: 'The folder first — then the tests. Ünïcødé 🧪 “quoted”.',
    signature: 'sig-EqQBCkY',
  },
  { kind: 'redacted', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
  { kind: 'text', text: 'Listing the files and reading pkg.json 📦 …' },
  { kind: 'tool', id: 'call_ls_1', name: 'ls', input: { dir: '.', all: true, depth: 2 } },
  {
    kind: 'tool',
    id: 'call_cat_2',
    name: 'cat',
    input: { path: 'package.json', lines: [1, 40], note: 'é "x"' },
  },
];
const GEMINI_BLOCKS = BLOCKS.filter((b) => b.kind !== 'redacted');
/** The stock Chat Completions SDK keeps only the last `reasoning_content` piece: compared without it. */
const CHAT_SDK_BLOCKS = BLOCKS.filter((b) => b.kind !== 'thinking');

// ─── The server ──────────────────────────────────────────────────────────────────────────────────

interface Script {
  /** The SSE body. */
  body: string;
  /** Byte offsets where the body is cut into separate writes. */
  cuts?: number[];
}

let server: Server;
let base = '';
let script: (path: string) => Script = () => ({ body: '' });

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      void (async () => {
        const s = script(req.url ?? '');
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const bytes = Buffer.from(s.body, 'utf8');
        let from = 0;
        for (const at of [...(s.cuts ?? []), bytes.length]) {
          await new Promise<void>((r) => res.write(bytes.subarray(from, at), () => r()));
          from = at;
          // A separate turn of the event loop per piece, so the client reads them apart.
          await new Promise((r) => setTimeout(r, 1));
        }
        res.end();
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const anthropic = (): Anthropic => new Anthropic({ apiKey: 'k', baseURL: base, maxRetries: 0 });
const openai = (): OpenAI => new OpenAI({ apiKey: 'k', baseURL: `${base}/v1`, maxRetries: 0 });
const MESSAGES = [{ role: 'user' as const, content: 'What is in this folder?' }];

/** Serve each provider's events for `blocks`, cut by `seed` (text pieces and socket writes). */
function serve(blocks: readonly Block[], seed: number, extra: Partial<Script> = {}): void {
  const cut = seededCutter(seed);
  script = (path) => {
    let body: string;
    if (path.startsWith('/v1/messages')) body = sse(anthropicEvents(blocks, cut), { named: true });
    else if (path.startsWith('/v1/chat/completions')) body = sse(chatChunks(blocks, cut), { done: true });
    else if (path.startsWith('/v1/responses')) body = sse(responsesEvents(blocks, cut), { named: true });
    else if (path.includes(':streamGenerateContent')) body = sse(geminiChunks(blocks, cut, seed % 2 === 0));
    else throw new Error(`unexpected path ${path}`);
    return { body, cuts: seededByteCuts(seed, Buffer.byteLength(body), 40), ...extra };
  };
}

async function anthropicFold(): Promise<ReturnType<typeof anthropicStream>> {
  const acc = anthropicStream();
  const stream = await anthropic().messages.create({
    model: 'm',
    max_tokens: 64,
    messages: MESSAGES,
    stream: true,
  });
  for await (const event of stream) acc.push(event);
  return acc;
}

async function chatFold(): Promise<ReturnType<typeof openaiChatStream>> {
  const acc = openaiChatStream();
  const stream = await openai().chat.completions.create({
    model: 'm',
    messages: MESSAGES,
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const chunk of stream) acc.push(chunk);
  return acc;
}

async function responsesFold(): Promise<ReturnType<typeof openaiResponsesStream>> {
  const acc = openaiResponsesStream();
  const stream = await openai().responses.create({
    model: 'm',
    input: 'What is in this folder?',
    include: ['reasoning.encrypted_content'],
    stream: true,
  });
  for await (const event of stream) acc.push(event);
  return acc;
}

/** The `data:` payloads of an SSE response, as they arrive (Gemini's REST stream). */
async function* sseData(res: Response): AsyncGenerator<unknown> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const data = frame
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data !== '') yield JSON.parse(data) as unknown;
    }
    if (done) return;
  }
}

async function geminiFold(): Promise<ReturnType<typeof geminiStream>> {
  const acc = geminiStream();
  const res = await fetch(`${base}/v1beta/models/gemini-3-pro:streamGenerateContent?alt=sse`, {
    method: 'POST',
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'What is in this folder?' }] }] }),
  });
  for await (const chunk of sseData(res)) acc.push(chunk as GeminiStreamChunk);
  return acc;
}

/** Kind, author and provider of each item: what the reasoning checks below read. */
const shape = (items: NewItem[]) =>
  items.map((i) => [i.kind, i.kind === 'reasoning' ? (i.provider ?? '-') : i.author]);

// ─── The real clients ────────────────────────────────────────────────────────────────────────────

describe('real SDK streams fold into the items of the same reply unstreamed', () => {
  it('Anthropic Messages: thinking, redacted thinking, text, two tool calls', async () => {
    serve(BLOCKS, 11);
    const acc = await anthropicFold();
    expect(acc.done).toBe(true);
    const items = acc.items();
    const sdkFinal = await anthropic()
      .messages.stream({ model: 'm', max_tokens: 64, messages: MESSAGES })
      .finalMessage();
    expect(items).toEqual(anthropicResponseItems(sdkFinal));
    expect(items).toEqual(anthropicResponseItems(anthropicMessage(BLOCKS)));
    expect(acc.reply()).toMatchObject({
      stop_reason: 'tool_use',
      usage: { input_tokens: 472, output_tokens: 89 },
    });
    expect(shape(items)).toEqual([
      ['reasoning', 'anthropic'],
      ['reasoning', 'anthropic'],
      ['message', 'model'],
      ['tool_call', 'model'],
      ['tool_call', 'model'],
    ]);
    expect(items[0]).toMatchObject({
      text: BLOCKS[0]!.kind === 'thinking' ? BLOCKS[0]!.text : '',
      signature: 'sig-EqQBCkY',
    });
    expect(items[1]).toMatchObject({ encrypted: 'EmwKAhgBEgy3va3pzix/LafPsn4a' });
    expect(items[4]).toMatchObject({
      callId: 'call_cat_2',
      input: { path: 'package.json', lines: [1, 40], note: 'é "x"' },
    });
  });

  it('OpenAI Chat Completions: content, parallel tool calls in pieces, finish_reason, the usage chunk', async () => {
    serve(CHAT_SDK_BLOCKS, 12);
    const acc = await chatFold();
    expect(acc.done).toBe(true);
    const items = acc.items();
    const sdkFinal = await openai()
      .chat.completions.stream({ model: 'm', messages: MESSAGES })
      .finalChatCompletion();
    expect(items).toEqual(openaiChatResponseItems(sdkFinal));
    expect(items).toEqual(openaiChatResponseItems(chatCompletion(CHAT_SDK_BLOCKS)));
    expect(acc.reply()).toMatchObject({
      usage: { total_tokens: 108 },
      choices: [{ finish_reason: 'tool_calls' }],
    });
    expect(shape(items)).toEqual([
      ['message', 'model'],
      ['tool_call', 'model'],
      ['tool_call', 'model'],
    ]);
  });

  it('OpenAI Chat Completions with reasoning_content (compatible servers) keeps it, provider openai', async () => {
    serve(BLOCKS, 13);
    const items = (await chatFold()).items();
    expect(items).toEqual(openaiChatResponseItems(chatCompletion(BLOCKS)));
    expect(items[0]).toMatchObject({
      kind: 'reasoning',
      provider: 'openai',
      text: (BLOCKS[0] as { text: string }).text,
    });
  });

  it('OpenAI Responses: reasoning summary deltas, encrypted content, message, function call arguments', async () => {
    serve(BLOCKS, 14);
    const acc = await responsesFold();
    expect(acc.done).toBe(true);
    const items = acc.items();
    const sdkFinal = await openai()
      .responses.stream({ model: 'm', input: 'What is in this folder?' })
      .finalResponse();
    expect(items).toEqual(openaiResponsesItems(sdkFinal));
    expect(items).toEqual(openaiResponsesItems(responsesResponse(BLOCKS)));
    expect(acc.reply()).toMatchObject({ status: 'completed', usage: { total_tokens: 108 } });
    expect(shape(items)).toEqual([
      ['reasoning', 'openai'],
      ['reasoning', 'openai'],
      ['message', 'model'],
      ['tool_call', 'model'],
      ['tool_call', 'model'],
    ]);
    expect(items[0]).toMatchObject({ signature: 'rs_0', encrypted: 'sig-EqQBCkY' });
  });

  it.each([
    ['on an empty piece after the thought', 20],
    ['on the thought’s first piece', 21],
  ])('Gemini streamGenerateContent (alt=sse), signature %s', async (_, seed) => {
    serve(GEMINI_BLOCKS, seed);
    const acc = await geminiFold();
    expect(acc.done).toBe(true);
    const items = acc.items();
    expect(items).toEqual(geminiResponseItems(geminiResponse(GEMINI_BLOCKS)));
    expect(shape(items)).toEqual([
      ['reasoning', 'gemini'],
      ['message', 'model'],
      ['tool_call', 'model'],
      ['tool_call', 'model'],
    ]);
    expect(items[0]).toMatchObject({ signature: 'sig-EqQBCkY' });
    expect(acc.reply()).toMatchObject({
      usageMetadata: { totalTokenCount: 120 },
      candidates: [{ finishReason: 'STOP' }],
    });
  });

  it('the same reply cut at other points, in its text and on the socket, gives the same items (5 seeds)', async () => {
    const expected = {
      anthropic: anthropicResponseItems(anthropicMessage(BLOCKS)),
      chat: openaiChatResponseItems(chatCompletion(BLOCKS)),
      responses: openaiResponsesItems(responsesResponse(BLOCKS)),
      gemini: geminiResponseItems(geminiResponse(GEMINI_BLOCKS)),
    };
    for (const seed of [101, 202, 303, 404, 505]) {
      serve(BLOCKS, seed);
      expect((await anthropicFold()).items()).toEqual(expected.anthropic);
      expect((await chatFold()).items()).toEqual(expected.chat);
      expect((await responsesFold()).items()).toEqual(expected.responses);
      serve(GEMINI_BLOCKS, seed);
      expect((await geminiFold()).items()).toEqual(expected.gemini);
    }
  });

  it('a stream cut short: items() names what is missing; { partial: true } gives what arrived', async () => {
    const events = anthropicEvents(BLOCKS, seededCutter(7));
    // Cut inside the text block: thinking and redacted thinking arrived whole, the text in part.
    const firstText = events.findIndex((e) => e.type === 'content_block_delta' && e.index === 2);
    const body = sse(events.slice(0, firstText + 2), { named: true });
    script = () => ({ body, cuts: seededByteCuts(7, Buffer.byteLength(body), 10) });
    const acc = anthropicStream();
    const stream = await anthropic().messages.create({
      model: 'm',
      max_tokens: 64,
      messages: MESSAGES,
      stream: true,
    });
    // The SDK's raw stream just ends: nothing but the fold notices that message_stop never came.
    for await (const event of stream) acc.push(event);
    expect(acc.done).toBe(false);
    expect(() => acc.items()).toThrow(IncompleteStreamError);
    expect(() => acc.items()).toThrow(
      /anthropicStream: the stream has not ended: \d+ events, the last content_block_delta at index 2, no message_stop/,
    );
    const partial = acc.items({ partial: true });
    expect(shape(partial)).toEqual([
      ['reasoning', 'anthropic'],
      ['reasoning', 'anthropic'],
      ['message', 'model'],
    ]);
    const text = (partial[2] as { text: string }).text;
    expect(text.length).toBeGreaterThan(0);
    expect('Listing the files and reading pkg.json 📦 …'.startsWith(text)).toBe(true);
  });
});

// ─── Property: any cut of any reply ──────────────────────────────────────────────────────────────

const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
const block: fc.Arbitrary<Block> = fc.oneof(
  fc.record({
    kind: fc.constant('thinking' as const),
    text,
    signature: fc.base64String({ minLength: 4, maxLength: 24 }),
  }),
  fc.record({
    kind: fc.constant('redacted' as const),
    data: fc.base64String({ minLength: 4, maxLength: 24 }),
  }),
  fc.record({ kind: fc.constant('text' as const), text }),
  fc.record({
    kind: fc.constant('tool' as const),
    id: fc.stringMatching(/^call_[a-z0-9]{1,8}$/),
    name: fc.stringMatching(/^[a-z_]{1,12}$/),
    input: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  }),
);
/** No two thoughts or two texts side by side: a provider sends those as one. */
const noRuns = (bs: Block[]): Block[] =>
  bs.filter((b, i) => i === 0 || b.kind !== bs[i - 1]!.kind || b.kind === 'tool' || b.kind === 'redacted');
/** A reply: blocks, call ids distinct. */
const reply = fc
  .array(block, { minLength: 1, maxLength: 6 })
  .map(noRuns)
  .map((bs) => {
    const ids = new Set<string>();
    return bs.filter((b) => b.kind !== 'tool' || (!ids.has(b.id) && ids.add(b.id)));
  });

function fold<E>(acc: { push(e: E): void; items(): NewItem[] }, events: readonly unknown[]): NewItem[] {
  for (const e of events) acc.push(e as E);
  return acc.items();
}

describe('property: a reply cut anywhere folds into the items of the whole reply (seeded)', () => {
  it('all four providers, 200 replies each, two cuts per reply', () => {
    fc.assert(
      fc.property(reply, fc.nat(), fc.nat(), (blocks, s1, s2) => {
        const gemini = noRuns(blocks.filter((b) => b.kind !== 'redacted'));
        for (const seed of [s1, s2]) {
          const cut = seededCutter(seed, 1 + (seed % 8));
          expect(fold(anthropicStream(), anthropicEvents(blocks, cut))).toEqual(
            anthropicResponseItems(anthropicMessage(blocks)),
          );
          expect(fold(openaiChatStream(), chatChunks(blocks, cut))).toEqual(
            openaiChatResponseItems(chatCompletion(blocks)),
          );
          expect(fold(openaiResponsesStream(), responsesEvents(blocks, cut))).toEqual(
            openaiResponsesItems(responsesResponse(blocks)),
          );
          expect(fold(geminiStream(), geminiChunks(gemini, cut, seed % 2 === 0))).toEqual(
            geminiResponseItems(geminiResponse(gemini)),
          );
        }
      }),
      { seed: 1130, numRuns: 200 },
    );
  });
});

// ─── Errors ──────────────────────────────────────────────────────────────────────────────────────

function pushAll<E>(acc: { push(e: E): void }, events: readonly unknown[]): void {
  for (const e of events) acc.push(e as E);
}

describe('events that do not fit are named: type, position, index', () => {
  const cut = seededCutter(3);

  it('Anthropic', () => {
    const events = anthropicEvents(BLOCKS, cut);
    const start = events[0]!;
    expect(() =>
      pushAll(anthropicStream(), [
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' } },
      ]),
    ).toThrow('anthropicStream: event 0 (content_block_delta at index 0) arrived before message_start');
    expect(() =>
      pushAll(anthropicStream(), [
        start,
        { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'x' } },
      ]),
    ).toThrow(
      'anthropicStream: event 1 (content_block_delta at index 3) names block 3, which no content_block_start opened',
    );
    expect(() =>
      pushAll(anthropicStream(), [
        start,
        { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      ]),
    ).toThrow(
      'anthropicStream: event 1 (content_block_start at index 1) opened out of order: expected index 0',
    );
    const text = [
      start,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ];
    expect(() =>
      pushAll(anthropicStream(), [
        ...text,
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{' } },
      ]),
    ).toThrow('event 2 (content_block_delta at index 0) input_json_delta for a text block');
    expect(() =>
      pushAll(anthropicStream(), [
        ...text,
        { type: 'content_block_stop', index: 0 },
        { type: 'content_block_stop', index: 0 },
      ]),
    ).toThrow(
      'event 3 (content_block_stop at index 0) names block 0, which content_block_stop already closed',
    );
    expect(() =>
      pushAll(anthropicStream(), [
        ...text,
        { type: 'content_block_delta', index: 0, delta: { type: 'sparkle_delta' } },
      ]),
    ).toThrow(/event 2 \(content_block_delta at index 0\) has an unknown delta type "sparkle_delta"/);
    expect(() => pushAll(anthropicStream(), [start, { type: 'message_sparkle' }])).toThrow(
      /event 1 \(message_sparkle\) is not a Messages stream event/,
    );
    expect(() => pushAll(anthropicStream(), [...text, { type: 'message_stop' }])).toThrow(
      'event 2 (message_stop) arrived with block 0 still open',
    );
    expect(() => pushAll(anthropicStream(), [...events, { type: 'ping' }])).toThrow(
      `anthropicStream: event ${events.length} (ping) arrived after the stream ended (message_stop)`,
    );
    const tool = [
      start,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 't', name: 'n', input: {} },
      },
    ];
    expect(() =>
      pushAll(anthropicStream(), [
        ...tool,
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
        { type: 'content_block_stop', index: 0 },
      ]),
    ).toThrow(/event 3 \(content_block_stop at index 0\) closes a tool input that is not valid JSON/);
    expect(() =>
      pushAll(anthropicStream(), [
        start,
        { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ]),
    ).toThrow(/event 1 \(error\) is the provider's error overloaded_error: Overloaded/);
    expect(() => anthropicStream().push(null as unknown as AnthropicStreamEvent)).toThrow(
      'anthropicStream: event 0: expected an object with a string type, found null',
    );
    const e = (() => {
      try {
        pushAll(anthropicStream(), [start, start]);
      } catch (error) {
        return error;
      }
    })();
    expect(e).toBeInstanceOf(StreamEventError);
  });

  it('Anthropic: a tool call cut mid-arguments keeps the raw JSON text in a partial reply', () => {
    const events = anthropicEvents(
      [{ kind: 'tool', id: 't1', name: 'ls', input: { dir: 'src', deep: true } }],
      cut,
    );
    const acc = anthropicStream();
    pushAll(acc, events.slice(0, 4));
    expect(() => acc.reply()).toThrow(IncompleteStreamError);
    const [call] = acc.items({ partial: true });
    expect(call).toMatchObject({ kind: 'tool_call', callId: 't1', name: 'ls' });
    expect(typeof (call as { input: unknown }).input).toBe('string');
    expect('{"dir":"src","deep":true}'.startsWith((call as { input: string }).input)).toBe(true);
  });

  it('OpenAI Chat', () => {
    const chunks = chatChunks(BLOCKS, cut);
    const head = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const delta = (d: unknown, finish: string | null = null) => ({
      ...head,
      choices: [{ index: 0, delta: d, finish_reason: finish }],
    });
    expect(() =>
      pushAll(openaiChatStream(), [
        delta({ tool_calls: [{ index: 1, id: 'a', function: { name: 'f', arguments: '' } }] }),
      ]),
    ).toThrow(
      'openaiChatStream: event 0 (chunk) choices[0].delta.tool_calls[0] opens tool call 1, expected index 0',
    );
    expect(() =>
      pushAll(openaiChatStream(), [delta({ tool_calls: [{ index: 0, function: { arguments: '{' } }] })]),
    ).toThrow(
      'event 0 (chunk) choices[0].delta.tool_calls[0] opens tool call 0 without an id and a function name',
    );
    expect(() =>
      pushAll(openaiChatStream(), [delta({ content: 'a' }, 'stop'), delta({ content: 'b' })]),
    ).toThrow('event 1 (chunk) arrived after the stream ended (finish_reason)');
    expect(() => pushAll(openaiChatStream(), [{ ...head, object: 'chat.completion', choices: [] }])).toThrow(
      'event 0 (chunk) is a "chat.completion", expected chat.completion.chunk',
    );
    expect(() => openaiChatStream().push({ data: 1 } as unknown as OpenAIChatChunk)).toThrow(
      'openaiChatStream: chunk 0: expected a ChatCompletionChunk with a choices array, found keys data',
    );
    const acc = openaiChatStream();
    pushAll(acc, chunks.slice(0, -2));
    expect(() => acc.items()).toThrow(
      /openaiChatStream: the stream has not ended: \d+ events, the last chunk, no finish_reason/,
    );
    expect(acc.items({ partial: true }).map((i) => i.kind)).toEqual([
      'reasoning',
      'message',
      'tool_call',
      'tool_call',
    ]);
  });

  it('OpenAI Chat: a refusal streams into a message, as the unstreamed refusal does', () => {
    const head = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
    const acc = openaiChatStream();
    for (const [d, f] of [
      [{ role: 'assistant', content: null, refusal: '' }, null],
      [{ refusal: 'I can’t help ' }, null],
      [{ refusal: 'with that.' }, null],
      [{}, 'stop'],
    ] as const)
      acc.push({ ...head, choices: [{ index: 0, delta: d, finish_reason: f }] });
    const items = acc.items();
    expect(items).toEqual([{ kind: 'message', author: 'model', text: 'I can’t help with that.' }]);
    expect(items).toEqual(
      openaiChatResponseItems({
        choices: [{ message: { role: 'assistant', content: null, refusal: 'I can’t help with that.' } }],
      }),
    );
  });

  it('OpenAI Responses', () => {
    const events = responsesEvents(BLOCKS, cut);
    const created = events[0]!;
    expect(() => pushAll(openaiResponsesStream(), [events[2]!])).toThrow(
      'openaiResponsesStream: event 0 (response.output_item.added at output_index 0) arrived before response.created',
    );
    expect(() =>
      pushAll(openaiResponsesStream(), [
        created,
        { type: 'response.output_text.delta', output_index: 4, content_index: 0, delta: 'x' },
      ]),
    ).toThrow(
      'event 1 (response.output_text.delta at output_index 4) names output item 4, which no response.output_item.added opened',
    );
    const fc0 = {
      type: 'response.output_item.added',
      output_index: 0,
      item: { id: 'fc', type: 'function_call', call_id: 'c', name: 'n', arguments: '' },
    };
    expect(() =>
      pushAll(openaiResponsesStream(), [
        created,
        fc0,
        { type: 'response.output_text.delta', output_index: 0, content_index: 0, delta: 'x' },
      ]),
    ).toThrow(
      'event 2 (response.output_text.delta at output_index 0) is for a message item, output item 0 is a function_call',
    );
    expect(() =>
      pushAll(openaiResponsesStream(), [
        created,
        fc0,
        { type: 'response.output_item.done', output_index: 0, item: fc0.item },
        { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{' },
      ]),
    ).toThrow(
      'event 3 (response.function_call_arguments.delta at output_index 0) names output item 0, which response.output_item.done closed',
    );
    expect(() =>
      pushAll(openaiResponsesStream(), [created, fc0, { type: 'response.completed', response: {} }]),
    ).toThrow('event 2 (response.completed) arrived with output item 0 still open');
    expect(() =>
      pushAll(openaiResponsesStream(), [created, { type: 'response.sparkle.delta', output_index: 0 }]),
    ).toThrow(
      /event 1 \(response.sparkle.delta at output_index 0\) is not a Responses stream event this fold knows/,
    );
    expect(() =>
      pushAll(openaiResponsesStream(), [
        created,
        { type: 'response.failed', response: { error: { code: 'server_error', message: 'boom' } } },
      ]),
    ).toThrow(/event 1 \(response.failed\) says the response failed: server_error: boom/);
    // A built-in tool's progress events pass (its item comes whole in output_item.done).
    const ws = {
      type: 'response.output_item.added',
      output_index: 0,
      item: { id: 'ws', type: 'web_search_call', status: 'in_progress' },
    };
    const acc = openaiResponsesStream();
    pushAll(acc, [
      created,
      ws,
      { type: 'response.web_search_call.searching', output_index: 0, item_id: 'ws' },
    ]);
    expect(acc.events).toBe(3);
    // Cut mid-summary, then mid-text: the open item holds the deltas folded so far.
    const deltas = (type: string) =>
      events.flatMap((e, i) => (e.type === type ? [{ i, delta: e.delta as string }] : []));
    const summary = deltas('response.reasoning_summary_text.delta');
    const midSummary = openaiResponsesStream();
    pushAll(midSummary, events.slice(0, summary[1]!.i + 1));
    expect(midSummary.items({ partial: true })).toEqual([
      {
        kind: 'reasoning',
        author: 'model',
        provider: 'openai',
        signature: 'rs_0',
        text: summary[0]!.delta + summary[1]!.delta,
      },
    ]);
    const text = deltas('response.output_text.delta');
    const midText = openaiResponsesStream();
    pushAll(midText, events.slice(0, text[2]!.i + 1));
    const got = midText.items({ partial: true });
    expect(shape(got)).toEqual([
      ['reasoning', 'openai'],
      ['reasoning', 'openai'],
      ['message', 'model'],
    ]);
    expect(got[2]).toMatchObject({ text: text[0]!.delta + text[1]!.delta + text[2]!.delta });
    const partial = openaiResponsesStream();
    pushAll(partial, events.slice(0, -1));
    expect(() => partial.items()).toThrow(/no response.completed/);
    expect(partial.items({ partial: true })).toEqual(openaiResponsesItems(responsesResponse(BLOCKS)));
  });

  it('Gemini', () => {
    const chunks = geminiChunks(GEMINI_BLOCKS, cut);
    expect(() =>
      pushAll(geminiStream(), [{ candidates: [{ content: { parts: [{ inlineData: {} }] } }] }]),
    ).toThrow(
      'geminiStream: event 0 (chunk) candidates[0].content.parts[0] has none of text, thought, functionCall (found inlineData)',
    );
    expect(() =>
      pushAll(geminiStream(), [
        { candidates: [{ content: { parts: [{ text: 'a' }] }, finishReason: 'STOP' }] },
        { candidates: [{ content: { parts: [{ text: 'b' }] } }] },
      ]),
    ).toThrow('event 1 (chunk) arrived after the stream ended (finishReason)');
    expect(() =>
      pushAll(geminiStream(), [{ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'quota' } }]),
    ).toThrow(/event 0 \(chunk\) is the provider's error RESOURCE_EXHAUSTED: quota/);
    // Usage totals alone after the end are taken; content is not.
    const usage = geminiStream();
    pushAll(usage, [...chunks, { usageMetadata: { totalTokenCount: 130 } }]);
    expect(usage.reply()).toMatchObject({ usageMetadata: { totalTokenCount: 130 } });
    expect(usage.items()).toEqual(geminiResponseItems(geminiResponse(GEMINI_BLOCKS)));
    const acc = geminiStream();
    pushAll(acc, chunks.slice(0, -1));
    expect(() => acc.items()).toThrow(
      /geminiStream: the stream has not ended: \d+ events, the last chunk, no finishReason/,
    );
    expect(acc.items({ partial: true })).toEqual(geminiResponseItems(geminiResponse(GEMINI_BLOCKS)));
  });
});
