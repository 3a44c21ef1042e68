/**
 * `snapshot()` driven directly at its limits (issue 18): the image count, the token target, the byte
 * limits and the worth-it test, each exactly at the boundary and one past it, with the real renderer
 * and hand-set token estimates so every figure is known in advance.
 */
import { describe, expect, it } from 'vitest';
import { RENDERER } from '../../src/compaction/policy.js';
import { snapshot, type PageSpec, type SnapshotOptions } from '../../src/compaction/snapshot.js';
import type { Item } from '../../src/transcript/items.js';
import { Builder } from './builder.js';

const WORDS = 'the mill wheel turned slowly while the committee argued about roof tiles and rain'.split(' ');
function prose(chars: number, seed: number): string {
  let s = '';
  for (let i = seed; s.length < chars; i++)
    s += WORDS[(i * 7) % WORDS.length] + (i % 13 === 12 ? '.\n' : ' ');
  return s;
}

const PAGE: PageSpec = { width: 400, height: 300, cell: '4x6', scale: 1, tokens: 100 };
const HEADER = 10; // estimateText is a constant: every header costs HEADER + 4 tokens
const RUN_ITEM = 1000; // tokens of each item of an imaged run
const PERSON = 10;

/** Head person, then `runs` runs of (model prose, call, result) separated by person messages, then a tail. */
function history(runs: number, chars = 9000): { items: Item[]; tokens: number[]; runStarts: number[] } {
  const b = new Builder();
  const tokens: number[] = [];
  const runStarts: number[] = [];
  b.person('Task: write the mill history.');
  tokens.push(PERSON);
  for (let r = 0; r < runs; r++) {
    runStarts.push(b.items.length);
    b.model(prose(chars, r));
    b.tool('read', { r }, prose(chars / 3, r + 5));
    tokens.push(RUN_ITEM, RUN_ITEM, RUN_ITEM);
    b.person(`Correction ${r}: British spelling.`);
    tokens.push(PERSON);
  }
  b.model('Done.');
  tokens.push(PERSON);
  return { items: b.items, tokens, runStarts };
}

function options(over: Partial<SnapshotOptions> = {}): SnapshotOptions {
  return {
    page: PAGE,
    limits: { maxImages: 1000, maxBytesPerImage: 10_000_000, maxBytes: 100_000_000 },
    tailBudget: 2 * PERSON,
    personBudget: 1000,
    estimateText: () => HEADER,
    ...over,
  };
}

const b64 = (png: Uint8Array): number => Math.ceil(png.byteLength / 3) * 4;

describe('snapshot() without limits', () => {
  it('images every run between person messages and reports figures that add up', async () => {
    const h = history(3);
    const r = await snapshot(h.items, h.tokens, RENDERER, options());
    expect(r.rendered.map((x) => [x.from, x.to])).toEqual(h.runStarts.map((s) => [s, s + 3]));
    expect(r.decision.overflow).toEqual([]);
    const pages = r.rendered.map((x) => x.pages.length);
    expect(pages.every((p) => p >= 2)).toBe(true);
    const total = pages.reduce((a, b) => a + b, 0);
    const bytes = r.rendered.flatMap((x) => x.pages).reduce((s, p) => s + b64(p.png), 0);
    expect(r.report.details).toEqual({
      pages: total,
      runs: 3,
      chars: r.rendered.reduce((s, x) => s + x.text.length, 0),
      textTokens: 3 * 3 * RUN_ITEM,
      imageTokens: total * PAGE.tokens,
      bytes,
    });
    // Each run is a header (HEADER + 4) and its pages; everything else keeps its estimate.
    const before = h.tokens.reduce((a, b) => a + b, 0);
    expect(r.report.tokensBefore).toBe(before);
    expect(r.report.tokensAfter).toBe(before - 9 * RUN_ITEM + 3 * (HEADER + 4) + total * PAGE.tokens);
    expect(r.tokens).toHaveLength(r.items.length);
    expect(r.items.length).toBe(h.items.length - 9 + 3 + total);
    // The header and page items name their run; pages are chained after the header.
    const first = h.items[h.runStarts[0]!]!;
    const at = r.items.findIndex((i) => i.id === `${first.id}~snapshot`);
    expect(at).toBe(h.runStarts[0]);
    expect(r.items[at]).toMatchObject({
      kind: 'summary',
      covers: { from: first.id, to: h.items[h.runStarts[0]! + 2]!.id },
    });
    expect(r.items[at + 1]).toMatchObject({
      kind: 'image',
      id: `${first.id}~page1`,
      parent: `${first.id}~snapshot`,
    });
    expect(r.items[at + 2]).toMatchObject({
      kind: 'image',
      id: `${first.id}~page2`,
      parent: `${first.id}~page1`,
    });
    expect(r.tokens[at]).toBe(HEADER + 4);
    expect(r.tokens[at + 1]).toBe(PAGE.tokens);
    expect(r.report.applied).toBe(true);
    expect(r.report.items).toEqual(h.runStarts.flatMap((s) => [s, s + 1, s + 2].map((i) => h.items[i]!.id)));
    expect(r.report.reason).toBe(
      `imaged 3 runs as ${total} pages; head 1 items and tail 2 items verbatim; 2 person messages kept verbatim in the middle`,
    );
    expect(r.decision.page).toMatchObject({ variant: '4x6', layout: 'lines', spacing: { x: 0, y: 0 } });
    expect(r.decision.page.trim).toBeUndefined();
  });
});

describe('snapshot() at its limits', () => {
  it('maxImages: exactly the pages needed images all; one fewer leaves the oldest (part) over', async () => {
    const h = history(3);
    const all = await snapshot(h.items, h.tokens, RENDERER, options());
    const total = all.report.details!.pages as number;
    const exact = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ limits: { ...options().limits, maxImages: total } }),
    );
    expect(exact.decision).toEqual(all.decision);
    const less = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ limits: { ...options().limits, maxImages: total - 1 } }),
    );
    expect(less.report.details!.pages).toBeLessThanOrEqual(total - 1);
    // Newest first: the two newer runs whole, the oldest cut (its newer part imaged) or left over.
    expect(less.decision.runs.slice(-2)).toEqual(all.decision.runs.slice(-2));
    expect(less.decision.overflow).toHaveLength(1);
    expect(less.decision.overflow[0]!.from).toBe(h.items[h.runStarts[0]!]!.id);
    expect(less.report.reason).toMatch(/; 1 older runs did not fit the image limits$/);
    // No images at all: everything overflows, nothing is imaged.
    const none = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ limits: { ...options().limits, maxImages: 0 } }),
    );
    expect(none.decision.runs).toEqual([]);
    expect(none.report.applied).toBe(false);
    expect(none.items).toEqual(h.items);
    expect(none.report.reason).toMatch(
      /^nothing in the middle worth imaging; .*did not fit the image limits$/,
    );
  });

  it('target: exactly enough tokens images all; one token less cuts the oldest run', async () => {
    const h = history(3);
    const all = await snapshot(h.items, h.tokens, RENDERER, options());
    const imageTokens = all.report.details!.imageTokens as number;
    const before = all.report.tokensBefore;
    // The allowance: target − verbatim tokens − a header per candidate run.
    const exact = before - 9 * RUN_ITEM + 3 * (HEADER + 4) + imageTokens;
    const fit = await snapshot(h.items, h.tokens, RENDERER, options({ target: exact }));
    expect(fit.decision).toEqual(all.decision);
    expect(fit.report.tokensAfter).toBe(exact);
    const tight = await snapshot(h.items, h.tokens, RENDERER, options({ target: exact - 1 }));
    expect(tight.decision.runs.slice(-2)).toEqual(all.decision.runs.slice(-2));
    expect(tight.decision.overflow).toHaveLength(1);
    expect(tight.decision.overflow[0]!.from).toBe(all.decision.runs[0]!.from);
    // The oldest run's newer part, from a later cut to its end, is imaged in fewer pages.
    const oldest = tight.decision.runs[0]!;
    expect(tight.decision.runs).toHaveLength(3);
    expect(oldest.to).toBe(all.decision.runs[0]!.to);
    expect(oldest.from).toBe(h.items[h.runStarts[0]! + 1]!.id); // the cut before the call
    expect(tight.decision.overflow[0]!.to).toBe(h.items[h.runStarts[0]!]!.id);
    expect(tight.report.details!.pages).toBeLessThan(all.report.details!.pages as number);
    expect((tight.report.details!.imageTokens as number) <= imageTokens - PAGE.tokens).toBe(true);
  });

  it('maxBytes: exactly the bytes of all pages keeps all; one byte less gives up the oldest run whole', async () => {
    const h = history(3);
    const all = await snapshot(h.items, h.tokens, RENDERER, options());
    const bytes = all.report.details!.bytes as number;
    const exact = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ limits: { ...options().limits, maxBytes: bytes } }),
    );
    expect(exact.decision).toEqual(all.decision);
    const less = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ limits: { ...options().limits, maxBytes: bytes - 1 } }),
    );
    expect(less.decision.runs).toEqual(all.decision.runs.slice(1));
    expect(less.decision.overflow).toEqual([all.decision.runs[0]]);
    const oldestBytes = all.rendered[0]!.pages.reduce((s, p) => s + b64(p.png), 0);
    expect(less.report.details!.bytes).toBe(bytes - oldestBytes);
    // The dropped run is verbatim in the request again, with its own estimates.
    const s = h.runStarts[0]!;
    expect(less.items.slice(s, s + 3)).toEqual(h.items.slice(s, s + 3));
    expect(less.tokens.slice(s, s + 3)).toEqual([RUN_ITEM, RUN_ITEM, RUN_ITEM]);
  });

  it('maxBytesPerImage: a page exactly at the limit passes; one byte over is an error naming both', async () => {
    const h = history(1);
    const all = await snapshot(h.items, h.tokens, RENDERER, options());
    const largest = Math.max(...all.rendered[0]!.pages.map((p) => b64(p.png)));
    const at = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ limits: { ...options().limits, maxBytesPerImage: largest } }),
    );
    expect(at.decision).toEqual(all.decision);
    await expect(
      snapshot(
        h.items,
        h.tokens,
        RENDERER,
        options({ limits: { ...options().limits, maxBytesPerImage: largest - 1 } }),
      ),
    ).rejects.toThrow(
      `snapshot: a page of ${largest} base64 bytes exceeds the profile's ${largest - 1} per image; use a smaller page shape`,
    );
  });

  it('worth it: a run whose pages and header cost as much as its text stays text; one token more is imaged', async () => {
    const h = history(1, 300); // one page
    const all = await snapshot(h.items, h.tokens, RENDERER, options());
    expect(all.report.details!.pages).toBe(1);
    // Pages + header = 100 + 14: text of exactly 114 tokens is not worth it, 115 is.
    const withRun = (t: number[]): number[] => h.tokens.map((x, i) => (i >= 1 && i <= 3 ? t[i - 1]! : x));
    const equal = await snapshot(h.items, withRun([38, 38, 38]), RENDERER, options());
    expect(equal.decision.runs).toEqual([]);
    expect(equal.report.reason).toBe(
      'nothing in the middle worth imaging; 1 runs kept as text (cheaper than a page)',
    );
    const more = await snapshot(h.items, withRun([38, 38, 39]), RENDERER, options());
    expect(more.decision.runs).toHaveLength(1);
    expect(more.report.reason).not.toMatch(/kept as text/);
  });

  it('a tight image limit images the oldest person messages with their runs (runs ≤ maxImages / 2)', async () => {
    const h = history(4, 300); // four one-page runs
    const r = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ limits: { ...options().limits, maxImages: 5 } }),
    );
    // 5 images allow floor(5 / 2) = 2 runs: the plan keeps one island, the older persons are imaged.
    expect(r.rendered.length).toBeLessThanOrEqual(2);
    expect(r.plan.personImaged).toBeGreaterThan(0);
    expect(r.report.reason).toMatch(/person messages imaged for lack of budget/);
    const roomy = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ limits: { ...options().limits, maxImages: 8 } }),
    );
    expect(roomy.rendered).toHaveLength(4);
    expect(roomy.plan.personImaged).toBe(0);
  });

  it('with tokensFor the last page is cut to its rows and priced by its height', async () => {
    const h = history(1, 300);
    const priced: [number, number][] = [];
    const tokensFor = (w: number, hgt: number): number => {
      priced.push([w, hgt]);
      return Math.ceil((w * hgt) / 1200);
    };
    const r = await snapshot(h.items, h.tokens, RENDERER, options({ tokensFor }));
    expect(r.decision.page.trim).toBe(true);
    const p = r.rendered[0]!.pages;
    expect(p).toHaveLength(1);
    expect(p[0]!.height).toBeLessThan(PAGE.height);
    expect(p[0]!.height % 6).toBe(0);
    const at = r.items.findIndex((i) => i.kind === 'image');
    expect(r.tokens[at]).toBe(Math.ceil((400 * p[0]!.height) / 1200));
    expect(r.report.details!.imageTokens).toBe(r.tokens[at]);
  });

  it('records the full page variant, the compression asked for, and a page chosen among candidates', async () => {
    const h = history(2);
    const plain = await snapshot(h.items, h.tokens, RENDERER, options());
    expect(plain.decision.page).toEqual({
      width: 400,
      height: 300,
      cell: '4x6',
      scale: 1,
      spacing: { x: 0, y: 0 },
      layout: 'lines',
      variant: '4x6',
      tokens: 100,
    });
    const fastest = await snapshot(
      h.items,
      h.tokens,
      RENDERER,
      options({ page: { ...PAGE, compression: 'fastest' } }),
    );
    expect(fastest.decision.page.compression).toBe('fastest');
    expect(fastest.rendered[0]!.pages[0]!.png).not.toEqual(plain.rendered[0]!.pages[0]!.png);
    // Candidates: the narrow page needs more pages for the same text at the same price per page.
    const wide = { ...PAGE, width: 800, tokens: 100, cols: 200, rowsPerPage: 50 };
    const narrow = { ...PAGE, width: 200, tokens: 100, cols: 50, rowsPerPage: 50 };
    const chosen = await snapshot(h.items, h.tokens, RENDERER, options({ pages: [narrow, wide] }));
    expect(chosen.decision.page.width).toBe(800);
    // One candidate is no choice: the pass keeps its own page.
    const single = await snapshot(h.items, h.tokens, RENDERER, options({ pages: [wide] }));
    expect(single.decision.page.width).toBe(400);
  });
});
