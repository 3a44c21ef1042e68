/**
 * Layout states (WasmRun.layOut / restore): a run restored at any page boundary, on another core,
 * gives the pages, characters and escapes of one sequential run, byte for byte. The render pool
 * starts each worker's chunk this way (src/render-node).
 */
import { describe, expect, it } from 'vitest';
import { rng } from '../../src/probe/random.js';
import { loadWasmCore, type WasmCore, type WasmPageOptions } from '../../src/render/wasm.js';

interface Page {
  bytes: string;
  chars: number;
  escapes: number;
}

function pagesOf(
  core: WasmCore,
  text: string,
  options: WasmPageOptions,
): { pages: Page[]; states: Int32Array[] } {
  const run = core.pages(text, options);
  const states: Int32Array[] = [];
  // The count: every page's starting state, nothing drawn.
  const counted = run.layOut(1e6, (s, p) => void (states[p] = s.slice()));
  const sequential = core.pages(text, options);
  // Each page encoded before the next: a page is a view that the next one overwrites.
  const pages: Page[] = [];
  for (const p of sequential)
    pages.push({
      bytes: Buffer.from(p.png('stored')).toString('base64'),
      chars: p.chars,
      escapes: p.escapes,
    });
  expect(counted).toBe(pages.length);
  return { pages, states };
}

/** Restores page `p`'s state on `other` and renders up to `n` pages from there. */
function from(
  other: WasmCore,
  text: string,
  options: WasmPageOptions,
  state: Int32Array,
  p: number,
  n: number,
): Page[] {
  const run = other.pages(text, options);
  run.restore(state, p);
  const out: Page[] = [];
  for (const page of run) {
    out.push({
      bytes: Buffer.from(page.png('stored')).toString('base64'),
      chars: page.chars,
      escapes: page.escapes,
    });
    if (out.length === n) break;
  }
  return out;
}

const PIECES = [
  'word ',
  'the quick brown fox ',
  '\n',
  '\r\n',
  '\r',
  '\t',
  '  ',
  'x\ty\t\tz',
  'café ',
  '😀',
  '\u0000',
  '─│┼',
  '\u200b',
  '\uFFFF',
  'a-very-long-word-that-wraps-over-the-row-end-and-maybe-the-page-end-too-'.repeat(3),
  '   \n',
  '\n\n\n',
  '\ud800', // a lone surrogate: the core reads UTF-16 then
  '\udc00x',
];

function randomText(seed: number, length: number): string {
  const r = rng(seed);
  let s = '';
  while (s.length < length) s += r.pick(PIECES);
  return s;
}

const SHAPES: WasmPageOptions[] = [
  { width: 48, height: 24, cell: '4x6' },
  { width: 48, height: 24, cell: '4x6', layout: 'flow' },
  { width: 100, height: 40, cell: '5x8' },
  { width: 100, height: 40, cell: '5x8', layout: 'flow' },
];

describe('layout states', () => {
  it('restored at every page boundary, give the pages of one run (lines and flow, UTF-8 and UTF-16)', async () => {
    const [a, b] = [await loadWasmCore(), await loadWasmCore()];
    let boundaries = 0;
    let wide = 0;
    for (let seed = 1; seed <= 24; seed++) {
      let text = randomText(seed, 300 + seed * 40);
      // Half the texts well formed (UTF-8 in the core), half with lone surrogates (UTF-16).
      if (seed % 2 === 0) text = text.replaceAll('\ud800', '').replaceAll('\udc00', '');
      if (text.includes('\ud800') || text.includes('\udc00')) wide++;
      const options = SHAPES[seed % SHAPES.length]!;
      const { pages, states } = pagesOf(a, text, options);
      expect(pages.length, `seed ${seed}`).toBeGreaterThan(2);
      for (let p = 0; p < pages.length; p++) {
        // Two pages from each boundary, on another core; every page from the middle one.
        const n = p === pages.length >> 1 ? Infinity : 2;
        const got = from(b, text, options, states[p]!, p, n);
        expect(got, `seed ${seed}, from page ${p + 1}`).toEqual(pages.slice(p, p + n));
        boundaries++;
      }
      // The state after the last page: no more pages.
      expect(from(b, text, options, states[pages.length]!, pages.length, Infinity)).toEqual([]);
    }
    expect(boundaries).toBeGreaterThan(200);
    expect(wide).toBeGreaterThan(5);
  });

  it('keeps a wrapped line, a tab run and an escape that cross a page boundary', async () => {
    const [a, b] = [await loadWasmCore(), await loadWasmCore()];
    const text = ('x'.repeat(200) + '\t\t\t😀\u0000\u0001' + 'y'.repeat(90) + '\r\n').repeat(12);
    for (const options of SHAPES) {
      const { pages, states } = pagesOf(a, text, options);
      const totals = { chars: 0, escapes: 0 };
      for (let p = 0; p < pages.length; p++) {
        const run = b.pages(text, options);
        run.restore(states[p]!, p);
        const rest = [...run].map((page) => [page.chars, page.escapes]);
        expect(rest).toEqual(pages.slice(p).map((q) => [q.chars, q.escapes]));
        // Escapes so far come with the state: the run's total is the whole text's.
        expect(run.escapes).toBe(pages.reduce((n, q) => n + q.escapes, 0));
        totals.chars += pages[p]!.chars;
        totals.escapes += pages[p]!.escapes;
      }
      expect(totals.escapes).toBeGreaterThan(0);
    }
  });

  it('refuses a state taken for another text, encoding or layout', async () => {
    const core = await loadWasmCore();
    const options = { width: 48, height: 24, cell: '4x6' as const };
    const { states } = pagesOf(core, 'abc\n'.repeat(100), options);
    expect(() => core.pages('abcd\n'.repeat(100), options).restore(states[1]!, 1)).toThrow(/another text/);
    expect(() =>
      core.pages('abc\n'.repeat(100), { ...options, layout: 'flow' }).restore(states[1]!, 1),
    ).toThrow(/another text/);
    expect(() => core.pages('abc\n'.repeat(99) + 'ab\ud800\n', options).restore(states[1]!, 1)).toThrow(
      /another text/,
    );
    expect(() => core.pages('abc\n'.repeat(100), options).restore(new Int32Array(3), 1)).toThrow(
      /layout state of/,
    );
    const bad = states[1]!.slice();
    bad[3] = 1e6; // the text position past the end
    expect(() => core.pages('abc\n'.repeat(100), options).restore(bad, 1)).toThrow(/another text/);
  });
});
