import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/transcript/items.js';
import { renderTree } from '../../src/tree/render.js';

const time = '2026-11-29T00:00:00.000Z';
const msg = (id: string, parent: string | null, text: string): Item => ({
  id,
  parent,
  turn: 1,
  time,
  kind: 'message',
  author: 'person',
  text,
});

describe('renderTree', () => {
  it('draws nested branches, the tip, checkpoints, and orphans as roots', () => {
    const items = [
      msg('a', null, 'root'),
      msg('b', 'a', 'left'),
      msg('c', 'a', 'right'),
      msg('d', 'c', 'r1'),
      msg('e', 'c', 'r2'),
      msg('f', 'gone', 'orphan'),
    ];
    const out = renderTree(items, 'e', [
      { label: 'cp', at: 'c', turn: 1, time, files: {} },
      { label: 'zero', at: null, turn: 0, time, files: {} },
    ]);
    expect(out).toBe(
      [
        '(start)  [checkpoint zero]',
        '|- a t1 person/message: root',
        '|  |- b t1 person/message: left',
        '|  `- c t1 person/message: right  [checkpoint cp]',
        '|     |- d t1 person/message: r1',
        '|     `- e t1 person/message: r2  <- tip',
        '`- f t1 person/message: orphan',
        '',
      ].join('\n'),
    );
  });

  it('draws a chain of 50k items without recursion and shortens long text', () => {
    const items: Item[] = [];
    for (let i = 0; i < 50_000; i++) items.push(msg(`i${i}`, i === 0 ? null : `i${i - 1}`, 'x'.repeat(100)));
    const out = renderTree(items, 'i49999', [], { width: 10 });
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(50_000);
    expect(lines[0]).toBe('i0 t1 person/message: xxxxxxxxx…');
    expect(lines[49_999]).toMatch(/^i49999 .* {2}<- tip$/);
  });
});
