import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { detectFormat, importTranscript } from '../../src/transcript/import/index.js';
import { KIND_AUTHORS } from '../../src/transcript/items.js';
import { calls, expectLinearPath, results } from './fixtures.js';

const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';

// Typed with the `ai` package's own ModelMessage: the compiler checks this is the SDK's shape.
const messages: ModelMessage[] = [
  { role: 'system', content: 'You are a weather assistant.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is the weather in Tokyo?' },
      { type: 'image', image: TINY_PNG, mediaType: 'image/png' },
      {
        type: 'file',
        data: new TextEncoder().encode('notes: bring an umbrella'),
        mediaType: 'text/plain',
        filename: 'notes.txt',
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'reasoning',
        text: 'I should call the weather tool.',
        providerOptions: { anthropic: { signature: 'sig-1' } },
      },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: { city: 'Tokyo' } },
      { type: 'tool-call', toolCallId: 'call_2', toolName: 'time', input: { tz: 'Asia/Tokyo' } },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'weather',
        output: { type: 'json', value: { temp: 21, sky: 'rain' } },
      },
      {
        type: 'tool-result',
        toolCallId: 'call_2',
        toolName: 'time',
        output: { type: 'error-text', value: 'tz service down' },
      },
    ],
  },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'call_3', toolName: 'radar', input: { city: 'Tokyo' } }],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_3',
        toolName: 'radar',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'radar map:' },
            { type: 'image-data', data: TINY_PNG, mediaType: 'image/png' },
          ],
        },
      },
    ],
  },
  { role: 'assistant', content: 'It is 21 °C and raining in Tokyo.' },
];

describe('vercel-ai importer (ModelMessage[])', () => {
  const r = importTranscript(messages);

  it('is detected as its own format, not as OpenAI Chat', () => {
    expect(detectFormat(messages)).toBe('vercel-ai');
    expect(detectFormat(JSON.stringify(messages))).toBe('vercel-ai');
    expect(r.format).toBe('vercel-ai');
    expectLinearPath(r.items);
    for (const item of r.items) expect(KIND_AUTHORS[item.kind]).toContain(item.author);
  });

  it('keeps every tool call and its output, paired, with no orphan warnings', () => {
    expect(calls(r.items).map((c) => [c.callId, c.name, c.input])).toEqual([
      ['call_1', 'weather', { city: 'Tokyo' }],
      ['call_2', 'time', { tz: 'Asia/Tokyo' }],
      ['call_3', 'radar', { city: 'Tokyo' }],
    ]);
    const [weather, time, radar] = results(r.items);
    expect(weather!.content).toEqual([{ type: 'text', text: '{"temp":21,"sky":"rain"}' }]);
    expect(weather!.isError).toBeUndefined();
    expect(time!.content).toEqual([{ type: 'text', text: 'tz service down' }]);
    expect(time!.isError).toBe(true);
    expect(radar!.content).toEqual([
      { type: 'text', text: 'radar map:' },
      { type: 'image', mediaType: 'image/png', data: TINY_PNG, width: 1, height: 1 },
    ]);
    expect(r.warnings).toEqual([]);
  });

  it('maps system, person text, images, text files and signed reasoning', () => {
    expect(r.system).toBe('You are a weather assistant.');
    expect(r.items.map((i) => `${i.kind}/${i.author}`).slice(0, 5)).toEqual([
      'message/person',
      'image/person',
      'context/surface',
      'reasoning/model',
      'message/model',
    ]);
    expect(r.items[2]).toMatchObject({ text: 'notes: bring an umbrella', source: 'notes.txt' });
    expect(r.items[3]).toMatchObject({ provider: 'anthropic', signature: 'sig-1' });
    expect(r.items.at(-1)).toMatchObject({
      kind: 'message',
      author: 'model',
      text: 'It is 21 °C and raining in Tokyo.',
    });
  });

  it('takes generateText options: system as a string, a system message or an array of them', () => {
    const rest = messages.slice(1);
    expect(importTranscript({ system: 'A', messages: rest }).system).toBe('A');
    expect(importTranscript({ system: { role: 'system', content: 'B' }, messages: rest }).system).toBe('B');
    const two = importTranscript({
      system: [
        { role: 'system', content: 'C' },
        { role: 'system', content: 'D' },
      ],
      messages: rest,
    });
    expect(two.format).toBe('vercel-ai');
    expect(two.system).toBe('C\n\nD');
    expect(() => importTranscript({ system: 7, messages: rest }, { format: 'vercel-ai' })).toThrow(
      'vercel-ai: system must be a string, a system message or an array of them, found number',
    );
  });

  it('reads the v4 CoreMessage spelling (args / result) the same way', () => {
    const v4 = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'ls', args: { dir: '.' } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'ls', result: ['x.ts'], isError: false }],
      },
    ];
    const v = importTranscript(v4);
    expect(v.format).toBe('vercel-ai');
    expect(calls(v.items)[0]!.input).toEqual({ dir: '.' });
    expect(results(v.items)[0]!.content).toEqual([{ type: 'text', text: '["x.ts"]' }]);
  });

  it('refuses an unknown part type, naming it and where it is', () => {
    const bad = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'a', toolName: 'ls', input: {} },
          { type: 'hologram', data: 1 },
        ],
      },
    ];
    expect(() => importTranscript(bad)).toThrow(
      /vercel-ai: messages\[1\]\.content\[1\]: unknown content part type "hologram"/,
    );
    const badOutput = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'ls', input: {} }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 'ls', output: { type: 'xml', value: '<a/>' } },
        ],
      },
    ];
    expect(() => importTranscript(badOutput)).toThrow(
      /messages\[1\]\.content\[0\]: unknown tool-result output type "xml"/,
    );
  });
});
