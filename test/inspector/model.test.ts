/** The tree layout of the navigator: lanes, drawing order, marks. */
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/transcript/items.js';
import { preview, treeRows } from '../../src/inspector/model.js';

const item = (id: string, parent: string | null, text = id): Item => ({
  id,
  parent,
  turn: 1,
  time: '2026-01-01T00:00:00.000Z',
  kind: 'message',
  author: 'person',
  text,
});

describe('treeRows', () => {
  // a - b - c - d (tip)
  //      \- x - y
  //      \- z
  const items = [
    item('a', null),
    item('b', 'a'),
    item('x', 'b'),
    item('y', 'x'),
    item('z', 'b'),
    item('c', 'b'),
    item('d', 'c'),
  ];
  const active = [items[0]!, items[1]!, items[5]!, items[6]!];

  it('keeps the active path in lane 0 and draws side branches first, one lane in', () => {
    const rows = treeRows(items, 'd', active, [], new Map());
    expect(rows.map((r) => `${r.id}${r.lane}`)).toEqual(['a0', 'b0', 'x1', 'y1', 'z1', 'c0', 'd0']);
    expect(rows.find((r) => r.id === 'b')!.children).toBe(3);
    expect(rows.filter((r) => r.active).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(rows.filter((r) => r.tip).map((r) => r.id)).toEqual(['d']);
  });

  it('marks checkpoints and forks at their item', () => {
    const rows = treeRows(
      items,
      'd',
      active,
      [{ label: 'cp', at: 'x', turn: 1, time: '', files: {} }],
      new Map([['c', ['c_f1']]]),
    );
    expect(rows.find((r) => r.id === 'x')!.checkpoints).toEqual(['cp']);
    expect(rows.find((r) => r.id === 'c')!.forks).toEqual(['c_f1']);
  });

  it('lays out a 100,000-item chain without recursion', () => {
    const chain: Item[] = [];
    for (let k = 0; k < 100_000; k++) chain.push(item(`i${k}`, k === 0 ? null : `i${k - 1}`));
    const rows = treeRows(chain, 'i99999', chain, [], new Map());
    expect(rows).toHaveLength(100_000);
    expect(rows.every((r) => r.lane === 0)).toBe(true);
    expect(rows.at(-1)!.tip).toBe(true);
  });

  it('folds whitespace and cuts long previews', () => {
    expect(preview(item('a', null, 'one\n\n  two'))).toBe('one two');
    expect(preview(item('a', null, 'x'.repeat(500)), 10)).toBe('xxxxxxxxx…');
  });
});
