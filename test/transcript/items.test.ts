import { describe, expect, it } from 'vitest';
import { itemText, KIND_AUTHORS, ITEM_KINDS, type Item } from '../../src/transcript/items.js';

const base = { id: 'a', parent: null, turn: 1, time: '2026-11-29T00:00:00.000Z' } as const;

describe('items', () => {
  it('gives every kind a set of allowed authors', () => {
    for (const kind of ITEM_KINDS) expect(KIND_AUTHORS[kind].length).toBeGreaterThan(0);
  });

  it('extracts readable text from each kind', () => {
    const call: Item = {
      ...base,
      kind: 'tool_call',
      author: 'model',
      callId: 'c1',
      name: 'ls',
      input: { dir: '.' },
    };
    expect(itemText(call)).toBe('ls({"dir":"."})');
    const result: Item = {
      ...base,
      kind: 'tool_result',
      author: 'machinery',
      callId: 'c1',
      name: 'ls',
      content: [
        { type: 'text', text: 'a.txt' },
        { type: 'image', mediaType: 'image/png', data: '' },
      ],
    };
    expect(itemText(result)).toBe('a.txt\n[image image/png]');
  });
});
