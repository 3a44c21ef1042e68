import { describe, expect, it } from 'vitest';
import { ItemValidationError, validateItem } from '../../src/transcript/validate.js';

const base = { id: 'i1', parent: null, turn: 1, time: '2026-11-29T10:00:00.000Z' };

describe('validateItem', () => {
  it('accepts every kind in its documented shape', () => {
    const ok = [
      { ...base, kind: 'message', author: 'person', text: 'hi' },
      { ...base, kind: 'context', author: 'surface', text: 'file', source: 'a.ts' },
      {
        ...base,
        kind: 'reasoning',
        author: 'model',
        text: '',
        provider: 'anthropic',
        signature: 'sig',
        encrypted: 'enc',
      },
      { ...base, kind: 'tool_call', author: 'model', callId: 'c', name: 'ls', input: null },
      {
        ...base,
        kind: 'tool_result',
        author: 'machinery',
        callId: 'c',
        name: 'ls',
        content: [
          { type: 'text', text: 'x' },
          { type: 'image', mediaType: 'image/png', data: 'AA', width: 2, height: 3 },
        ],
        files: ['a'],
      },
      { ...base, kind: 'image', author: 'person', mediaType: 'image/jpeg', data: 'AA' },
      { ...base, kind: 'summary', author: 'machinery', text: 's', covers: { from: 'a', to: 'b' } },
      { ...base, kind: 'digest', author: 'machinery', text: 'd', checkpoint: 'cp' },
      {
        ...base,
        kind: 'compaction',
        author: 'machinery',
        rung: 'snapshot',
        range: { from: 'a', to: 'b' },
        params: { pages: 2 },
      },
    ];
    for (const item of ok) expect(validateItem(item)).toBe(item);
  });

  it.each([
    [{ ...base, id: '' }, '?', 'id'],
    [{ ...base, kind: 'message', author: 'person', text: 1 }, 'i1', 'text'],
    [{ ...base, kind: 'message', author: 'machinery', text: 'x' }, 'i1', 'author'],
    [{ ...base, turn: 0, kind: 'message', author: 'person', text: 'x' }, 'i1', 'turn'],
    [{ ...base, time: 'yesterday', kind: 'message', author: 'person', text: 'x' }, 'i1', 'time'],
    [{ ...base, parent: '', kind: 'message', author: 'person', text: 'x' }, 'i1', 'parent'],
    [{ ...base, kind: 'nope', author: 'person' }, 'i1', 'kind'],
    [{ ...base, kind: 'tool_call', author: 'model', callId: 'c', name: 'n' }, 'i1', 'input'],
    [
      {
        ...base,
        kind: 'tool_result',
        author: 'machinery',
        callId: 'c',
        name: 'n',
        content: [{ type: 'video' }],
      },
      'i1',
      'content[0].type',
    ],
    [
      { ...base, kind: 'tool_result', author: 'machinery', callId: 'c', name: 'n', content: [], files: [3] },
      'i1',
      'files[0]',
    ],
    [
      { ...base, kind: 'image', author: 'person', mediaType: 'image/png', data: 'x', width: -1 },
      'i1',
      'width',
    ],
    [
      {
        ...base,
        kind: 'compaction',
        author: 'machinery',
        rung: 'fold',
        range: { from: 'a', to: 'b' },
        params: {},
      },
      'i1',
      'rung',
    ],
    [
      { ...base, kind: 'compaction', author: 'machinery', rung: 'elide', range: { from: 'a' }, params: {} },
      'i1',
      'range.to',
    ],
  ])('names the item and the field: %#', (item, id, field) => {
    let error: unknown;
    try {
      validateItem(item);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ItemValidationError);
    expect((error as ItemValidationError).itemId).toBe(id);
    expect((error as ItemValidationError).field).toBe(field);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^item ${id.replace('?', '\\?')}: field '${field.replace(/[[\].]/g, '\\$&')}' expected .*, found `,
      ),
    );
  });

  it('rejects non-objects', () => {
    expect(() => validateItem('x')).toThrow(/expected an object, found string/);
  });
});
