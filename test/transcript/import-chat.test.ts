import { describe, expect, it } from 'vitest';
import { importTranscript } from '../../src/transcript/import/index.js';
import { KIND_AUTHORS } from '../../src/transcript/items.js';
import { calls, expectLinearPath, fixture, results } from './fixtures.js';

describe('openai-chat importer', () => {
  const doc = JSON.parse(fixture('openai-chat.json')) as { messages: unknown[] };
  const r = importTranscript(doc);

  it('detects the wrapper and the bare array alike', () => {
    expect(r.format).toBe('openai-chat');
    expect(importTranscript(doc.messages).items).toEqual(r.items);
    expect(importTranscript(fixture('openai-chat.json')).items).toEqual(r.items);
    expectLinearPath(r.items);
    for (const item of r.items) expect(KIND_AUTHORS[item.kind]).toContain(item.author);
  });

  it('takes the system message out of the items', () => {
    expect(r.system).toMatch(/^You are a support agent/);
    expect(r.items.some((i) => 'text' in i && i.text?.startsWith('You are a support agent'))).toBe(false);
  });

  it('keeps parallel tool calls, empty-content calls and their results paired by id', () => {
    expect(calls(r.items).map((c) => c.name)).toEqual([
      'find_account',
      'list_charges',
      'charge_details',
      'refund',
    ]);
    expect(calls(r.items)[1]!.input).toEqual({
      email: 'dana@example.com',
      from: '2026-11-01',
      to: '2026-11-05',
    });
    expect(r.items.slice(1, 5).map((i) => i.kind)).toEqual([
      'tool_call',
      'tool_call',
      'tool_result',
      'tool_result',
    ]);
    expect(results(r.items).find((x) => x.callId === 'call_Gh5jK6lZ7xC8vB9')).toMatchObject({
      name: 'charge_details',
    });
    // an empty assistant text next to tool calls makes no message item
    expect(r.items.filter((i) => i.kind === 'message' && i.author === 'model' && i.text === '')).toEqual([]);
  });

  it('reports the orphan result and keeps it', () => {
    expect(r.warnings).toEqual([
      expect.stringMatching(/no earlier call with callId call_trimmed000001 \(orphan kept\)/),
    ]);
    expect(results(r.items).find((x) => x.callId === 'call_trimmed000001')).toMatchObject({ name: '' });
  });

  it('reads image_url data URLs into person images with size; turn 2 starts at the second prompt', () => {
    const image = r.items.find((i) => i.kind === 'image')!;
    expect(image).toMatchObject({ author: 'person', mediaType: 'image/png', width: 72, height: 48, turn: 2 });
    expect(r.items.filter((i) => i.turn === 1)).toHaveLength(9);
  });

  it('keeps unparsable arguments as a string with a warning', () => {
    const t = importTranscript([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ]);
    expect(calls(t.items)[0]!.input).toBe('{"a":');
    expect(t.warnings[0]).toMatch(/messages\[1\]\.tool_calls\[0\]: tool arguments are not valid JSON/);
  });

  it('rejects an unknown role naming the message', () => {
    expect(() =>
      importTranscript(
        [
          { role: 'user', content: 'x' },
          { role: 'robot', content: 'y' },
        ],
        { format: 'openai-chat' },
      ),
    ).toThrow(/openai-chat: messages\[1\]: expected role .*, found "robot"/);
  });
});

describe('anthropic importer', () => {
  const doc = JSON.parse(fixture('anthropic.json')) as { messages: unknown[] };
  const r = importTranscript(doc);

  it('detects the format and builds a linear path', () => {
    expect(r.format).toBe('anthropic');
    expectLinearPath(r.items);
    for (const item of r.items) expect(KIND_AUTHORS[item.kind]).toContain(item.author);
    expect(r.system).toMatch(/^You are a research assistant/);
  });

  it('keeps thinking with signature and redacted thinking', () => {
    const reasoning = r.items.filter((i) => i.kind === 'reasoning');
    expect(reasoning.map((x) => (x.signature ? 'signed' : x.encrypted ? 'redacted' : 'plain'))).toEqual([
      'signed',
      'redacted',
      'signed',
    ]);
  });

  it('pairs calls and results, keeps nested images and is_error', () => {
    expect(calls(r.items)).toHaveLength(4);
    const nested = results(r.items)[1]!;
    expect(nested.content.map((p) => p.type)).toEqual(['text', 'image']);
    expect(nested.content[1]).toMatchObject({ width: 140, height: 90, mediaType: 'image/png' });
    expect(results(r.items)[2]).toMatchObject({ isError: true, name: 'browser_open' });
    expect(r.warnings).toEqual([
      expect.stringMatching(/no result for callId toolu_01L9kJ8hG7fD6sA5qW4eR3tY/),
    ]);
  });

  it('files the image before the prompt in the prompt’s turn', () => {
    const image = r.items.find((i) => i.kind === 'image')!;
    expect(image).toMatchObject({ author: 'person', width: 80, height: 60, turn: 2 });
    expect(r.items.filter((i) => i.kind === 'message' && i.text === '')).toEqual([]);
  });

  it('warns when a declared media type disagrees with the bytes', () => {
    const png = (doc.messages[6] as { content: { source?: { data: string } }[] }).content[0]!.source!.data;
    const t = importTranscript(
      [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: png } },
            { type: 'text', text: 'x' },
          ],
        },
      ],
      { format: 'anthropic' },
    );
    expect(t.items[0]).toMatchObject({ mediaType: 'image/png' });
    expect(t.warnings[0]).toMatch(/declared as image\/jpeg but its header says image\/png/);
  });
});
