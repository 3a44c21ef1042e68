/**
 * The snapshot module's small exported pieces, exactly (issue 18): the row bound used for records from
 * before page variants, the header text of each record generation, replay's errors and run order, and
 * page costs at their edges.
 */
import { describe, expect, it } from 'vitest';
import { RENDERER } from '../../src/compaction/policy.js';
import {
  applySnapshot,
  pageCost,
  readingHint,
  rowsUpperBound,
  snapshotHeader,
  type PageSpec,
} from '../../src/compaction/snapshot.js';
import { Builder } from './builder.js';

/** The bound's own rule, written out: ⌈(cells − cols) / (cols − 1)⌉ more rows past the first. */
const rowsOf = (cells: number, cols: number): number =>
  cells <= cols ? 1 : 1 + Math.ceil((cells - cols) / (cols - 1));

describe('rowsUpperBound', () => {
  it('counts printable ASCII as 1 cell, tab 4, anything else 7, a surrogate pair 7 once', () => {
    expect(rowsUpperBound('', 10)).toBe(1);
    expect(rowsUpperBound('a'.repeat(10), 10)).toBe(1);
    expect(rowsUpperBound('a'.repeat(11), 10)).toBe(2);
    expect(rowsUpperBound('a'.repeat(19), 10)).toBe(2);
    expect(rowsUpperBound('a'.repeat(20), 10)).toBe(3); // 10 + 9 + 1: wrapped rows hold cols − 1
    expect(rowsUpperBound(' ~', 2)).toBe(1); // 32 and 126 are printable
    expect(rowsUpperBound('\u001f', 7)).toBe(1);
    expect(rowsUpperBound('\u001f', 6)).toBe(rowsOf(7, 6));
    expect(rowsUpperBound('\u007f', 6)).toBe(rowsOf(7, 6));
    expect(rowsUpperBound('\t', 4)).toBe(1);
    expect(rowsUpperBound('\t\t', 4)).toBe(rowsOf(8, 4));
    expect(rowsUpperBound('é', 7)).toBe(1);
    expect(rowsUpperBound('😀', 7)).toBe(1); // one escape, not two
    expect(rowsUpperBound('😀😀', 7)).toBe(rowsOf(14, 7));
    expect(rowsUpperBound('\udc00', 6)).toBe(rowsOf(7, 6)); // a lone low surrogate is its own escape
    expect(rowsUpperBound('a\udc00', 8)).toBe(1);
    expect(rowsUpperBound('a\udc00', 7)).toBe(rowsOf(8, 7));
    expect(rowsUpperBound('\ud800\udc00\udc00', 14)).toBe(1); // pair + lone low surrogate: 7 + 7
    expect(rowsUpperBound('\ud800\udc00\udc00', 13)).toBe(rowsOf(14, 13));
  });

  it('ends a row at \\n and at \\r, each line wrapped on its own', () => {
    expect(rowsUpperBound('\n', 5)).toBe(2);
    expect(rowsUpperBound('\r', 5)).toBe(2);
    expect(rowsUpperBound('\r\n', 5)).toBe(3);
    expect(rowsUpperBound(`${'a'.repeat(12)}\n${'b'.repeat(5)}`, 5)).toBe(rowsOf(12, 5) + 1);
    expect(rowsUpperBound(`${'a'.repeat(5)}\n${'b'.repeat(6)}`, 5)).toBe(1 + rowsOf(6, 5));
  });
});

describe('snapshotHeader', () => {
  const b = new Builder();
  b.person('q');
  b.model('a');
  const run = b.items;
  const page: PageSpec = { width: 400, height: 300, cell: '4x6', scale: 1, tokens: 100 };
  it('words a record from before page variants as it always was', () => {
    expect(snapshotHeader(run, 1, page)).toBe(
      `Transcript of items ${run[0]!.id}..${run[1]!.id} (turns 1-1) as 1 image of 4x6 pixel text; read it as the conversation at this point.`,
    );
    expect(snapshotHeader(run, 2, page)).toMatch(/ as 2 images of 4x6 pixel text;/);
  });
  it('names the variant and explains its layout', () => {
    expect(snapshotHeader(run, 3, { ...page, variant: '4x6' })).toBe(
      `Transcript of items ${run[0]!.id}..${run[1]!.id} (turns 1-1) as 3 images of 4x6 pixel text; ${readingHint('lines')} Read it as the conversation at this point.`,
    );
    expect(snapshotHeader(run, 1, { ...page, variant: '4x6+flow', layout: 'flow' })).toContain(
      readingHint('flow'),
    );
    expect(readingHint('flow')).not.toBe(readingHint('lines'));
  });
});

describe('applySnapshot (replay)', () => {
  const b = new Builder();
  b.person('Task');
  for (let i = 0; i < 4; i++) {
    b.model(`step ${i} `.repeat(40));
    b.person(`next ${i}`);
  }
  const items = b.items;
  const page: PageSpec = { width: 400, height: 300, cell: '4x6', scale: 1, tokens: 100, variant: '4x6' };
  it('splices runs in path order whatever order the record lists them in', async () => {
    const runs = [
      { from: items[3]!.id, to: items[3]!.id },
      { from: items[1]!.id, to: items[1]!.id },
    ];
    const r = await applySnapshot(items, { runs, page, text: 'fields' }, RENDERER);
    expect(r.rendered.map((x) => x.from)).toEqual([1, 3]);
    expect(r.items.map((i) => i.id)).toEqual([
      items[0]!.id,
      `${items[1]!.id}~snapshot`,
      `${items[1]!.id}~page1`,
      items[2]!.id,
      `${items[3]!.id}~snapshot`,
      `${items[3]!.id}~page1`,
      ...items.slice(4).map((i) => i.id),
    ]);
  });
  it('refuses a run whose ends are missing or reversed', async () => {
    for (const run of [
      { from: 'nope', to: items[1]!.id },
      { from: items[1]!.id, to: 'nope' },
      { from: items[3]!.id, to: items[1]!.id },
    ])
      await expect(applySnapshot(items, { runs: [run], page }, RENDERER)).rejects.toThrow(
        `snapshot: run ${run.from}..${run.to} is not in the path (the record was changed underneath it)`,
      );
  });
});

describe('pageCost', () => {
  const page: PageSpec = { width: 400, height: 60, cell: '4x6', scale: 1, tokens: 100, variant: '4x6' };
  it('costs nothing for no text, whole pages without tokensFor, a cut last page with it', () => {
    expect(pageCost('', page)).toEqual({ pages: 0, imageTokens: 0 });
    const ten = Array.from({ length: 10 }, (_, i) => `l${i}`).join('\n'); // exactly one page of 10 rows
    expect(pageCost(ten, page)).toEqual({ pages: 1, imageTokens: 100 });
    expect(pageCost(ten + '\nx', page)).toEqual({ pages: 2, imageTokens: 200 });
    const area = (w: number, h: number): number => w * h;
    expect(pageCost(ten, page, area)).toEqual({ pages: 1, imageTokens: 400 * 60 });
    expect(pageCost(ten + '\nx', page, area)).toEqual({ pages: 2, imageTokens: 100 + 400 * 12 }); // at least 2 rows
    expect(pageCost(ten + '\nx\ny\nz', page, area)).toEqual({ pages: 2, imageTokens: 100 + 400 * 18 });
  });
});
