import {
  AIMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
} from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { detectFormat, importTranscript } from '../../src/transcript/import/index.js';
import { KIND_AUTHORS } from '../../src/transcript/items.js';
import { calls, expectLinearPath, results } from './fixtures.js';

const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';

// Real @langchain/core messages, serialized the two ways LangChain stores them.
const messages = [
  new SystemMessage('You answer from the files.'),
  new HumanMessage({
    content: [
      { type: 'text', text: 'Which files are in src?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG}` } },
    ],
  }),
  new AIMessage({
    content: [
      { type: 'thinking', thinking: 'list the directory', signature: 'sig-a' },
      { type: 'text', text: 'Listing.' },
      // @langchain/anthropic keeps the tool_use block in content and the same call in tool_calls.
      { type: 'tool_use', id: 'toolu_1', name: 'ls', input: { dir: 'src' } },
    ],
    tool_calls: [{ id: 'toolu_1', name: 'ls', args: { dir: 'src' }, type: 'tool_call' }],
  }),
  new ToolMessage({ content: 'index.ts\nitems.ts', tool_call_id: 'toolu_1', name: 'ls' }),
  new AIMessage({
    content: '',
    tool_calls: [{ id: 'c2', name: 'cat', args: { path: 'nope.ts' }, type: 'tool_call' }],
  }),
  new ToolMessage({ content: 'no such file', tool_call_id: 'c2', status: 'error' }),
  new AIMessage('src holds index.ts and items.ts.'),
];

describe('langchain importer', () => {
  const serialized = JSON.parse(JSON.stringify(messages)) as unknown[];
  const stored = JSON.parse(JSON.stringify(mapChatMessagesToStoredMessages(messages))) as unknown[];

  it('detects both stored forms as langchain and reads them alike', () => {
    expect(detectFormat(serialized)).toBe('langchain');
    expect(detectFormat(JSON.stringify(stored))).toBe('langchain');
    const a = importTranscript(serialized);
    const b = importTranscript(stored);
    expect(a.format).toBe('langchain');
    expect(b.items).toEqual(a.items);
    expect(importTranscript({ messages: serialized }).items).toEqual(a.items);
    expectLinearPath(a.items);
    for (const item of a.items) expect(KIND_AUTHORS[item.kind]).toContain(item.author);
  });

  it('keeps every call once, paired with its result, and the error status', () => {
    const r = importTranscript(serialized);
    expect(r.system).toBe('You answer from the files.');
    expect(calls(r.items).map((c) => [c.callId, c.name, c.input])).toEqual([
      ['toolu_1', 'ls', { dir: 'src' }],
      ['c2', 'cat', { path: 'nope.ts' }],
    ]);
    expect(results(r.items).map((x) => [x.callId, x.name, x.isError ?? false])).toEqual([
      ['toolu_1', 'ls', false],
      ['c2', 'cat', true],
    ]);
    expect(r.items.map((i) => `${i.kind}/${i.author}`)).toEqual([
      'message/person',
      'image/person',
      'reasoning/model',
      'message/model',
      'tool_call/model',
      'tool_result/machinery',
      'tool_call/model',
      'tool_result/machinery',
      'message/model',
    ]);
    expect(r.items[2]).toMatchObject({
      text: 'list the directory',
      signature: 'sig-a',
      provider: 'anthropic',
    });
    expect(r.warnings).toEqual([]);
  });

  it('reads the OpenAI-shaped additional_kwargs.tool_calls of older records', () => {
    const old = [
      { type: 'human', data: { content: 'ls', additional_kwargs: {} } },
      {
        type: 'ai',
        data: {
          content: '',
          additional_kwargs: {
            tool_calls: [{ id: 'x', type: 'function', function: { name: 'ls', arguments: '{"dir":"."}' } }],
          },
        },
      },
      { type: 'tool', data: { content: 'a', tool_call_id: 'x' } },
    ];
    const r = importTranscript(old);
    expect(calls(r.items)[0]).toMatchObject({ callId: 'x', name: 'ls', input: { dir: '.' } });
    expect(results(r.items)[0]).toMatchObject({ callId: 'x', name: 'ls' });
  });

  it('refuses an unknown content block, naming it and where it is', () => {
    const bad = JSON.parse(
      JSON.stringify([new HumanMessage('hi'), new AIMessage({ content: [{ type: 'hologram', x: 1 }] })]),
    );
    expect(() => importTranscript(bad)).toThrow(
      /langchain: messages\[1\]\.content\[0\]: unknown content block type "hologram"/,
    );
  });
});
