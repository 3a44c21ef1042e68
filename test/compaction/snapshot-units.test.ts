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
  renderPages,
  rowsUpperBound,
  snapshotHeader,
  type PageSpec,
} from '../../src/compaction/snapshot.js';
import { decode, normalize } from '../../src/render/index.js';
import { formatItems } from '../../src/compaction/text.js';
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
  it('replays a record without text/output formats as json and verbatim, and honours trim and compression', async () => {
    const t = new Builder();
    t.person('Task');
    t.tool('read_file', { path: 'notes.md' }, JSON.stringify({ content: 'line one\nline two' }));
    t.person('next');
    const run = t.items.slice(1, 3);
    const runs = [{ from: run[0]!.id, to: run[1]!.id }];
    const old = await applySnapshot(t.items, { runs, page }, RENDERER);
    expect(old.rendered[0]!.text).toBe(formatItems(run, { toolInput: 'json', toolOutput: 'verbatim' }));
    const now = await applySnapshot(t.items, { runs, page, text: 'fields', output: 'readable' }, RENDERER);
    expect(now.rendered[0]!.text).toBe(formatItems(run, { toolInput: 'fields', toolOutput: 'readable' }));
    expect(now.rendered[0]!.text).not.toBe(old.rendered[0]!.text);
    // Untrimmed records keep full pages; trimmed ones cut the last page to its rows.
    expect(old.rendered[0]!.pages.map((p) => p.height)).toEqual([300]);
    const trimmed = await applySnapshot(t.items, { runs, page: { ...page, trim: true } }, RENDERER);
    expect(trimmed.rendered[0]!.pages[0]!.height).toBeLessThan(300);
    // The record's compression reaches the renderer: a replay draws the bytes the pass drew.
    const fastest = await applySnapshot(
      t.items,
      { runs, page: { ...page, compression: 'fastest' } },
      RENDERER,
    );
    const direct = await RENDERER.render(old.rendered[0]!.text, {
      shape: { width: 400, height: 300 },
      cell: '4x6',
      scale: 1,
      compression: 'fastest',
    });
    expect(fastest.rendered[0]!.pages[0]!.png).toEqual(direct.pages[0]!.png);
    expect(fastest.rendered[0]!.pages[0]!.png).not.toEqual(old.rendered[0]!.pages[0]!.png);
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

describe('renderPages (trim)', () => {
  // 10 rows of 6 px and 3 px to spare: a short page drawn at its rows is visibly not a full page.
  const page: PageSpec = { width: 400, height: 63, cell: '4x6', scale: 1, tokens: 100, variant: '4x6' };
  const lines = (n: number, tag = 'l'): string =>
    Array.from({ length: n }, (_, i) => `${tag}${i}`).join('\n');

  it('draws a text shorter than a page on one page of its rows, at least 2', async () => {
    const one = await renderPages('x', RENDERER, page, true);
    expect(one.map((p) => p.height)).toEqual([12]);
    const three = await renderPages(lines(3), RENDERER, page, true);
    expect(three.map((p) => p.height)).toEqual([18]);
    expect(decode(three.map((p) => p.png))).toBe(normalize(lines(3)));
  });

  it('keeps a text of exactly a page, or of whole pages, at full height', async () => {
    expect((await renderPages(lines(10), RENDERER, page, true)).map((p) => p.height)).toEqual([63]);
    expect((await renderPages(lines(9), RENDERER, page, true)).map((p) => p.height)).toEqual([54]);
    // Two full pages: the rest after the first needs a whole page, so nothing is redrawn.
    expect((await renderPages(lines(20), RENDERER, page, true)).map((p) => p.height)).toEqual([63, 63]);
  });

  it('redraws the last page from the right character, past astral characters on earlier pages', async () => {
    // Emoji before the break: page chars count code points, the redraw must start after them.
    const text = `${lines(8, '😀')}\n${lines(5, 'z')}`;
    const pages = await renderPages(text, RENDERER, page, true);
    expect(pages.map((p) => p.height)).toEqual([63, 18]);
    expect(decode(pages.map((p) => p.png))).toBe(normalize(text));
    const full = await renderPages(text, RENDERER, page, false);
    expect(full.map((p) => p.height)).toEqual([63, 63]);
    expect(decode(full.map((p) => p.png))).toBe(normalize(text));
  });
});
