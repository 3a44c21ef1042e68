import { existsSync, readFileSync } from 'node:fs';
import { crc32, inflateSync } from 'node:zlib';
import { decode as decodePng } from 'fast-png';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CELL_NAMES, CELLS, type CellName } from '../../src/render/cells.js';
import { WASM_BASE64, WASM_BYTES } from '../../src/render/generated/wasm.js';
import { encodePngSync } from '../../src/render/png.js';
import { countPages, renderScanlines } from '../../src/render/reference.js';
import { loadWasmCore, loadWasmCoreSync, type WasmCore } from '../../src/render/wasm.js';

interface Shape {
  width: number;
  height: number;
  cell: CellName;
  scale: number;
}

/** Pages as copies (both renderers reuse one buffer per run). */
function reference(text: string, s: Shape): { pages: Uint8Array[]; chars: number[]; escapes: number[] } {
  const pages: Uint8Array[] = [];
  const chars: number[] = [];
  const escapes: number[] = [];
  for (const page of renderScanlines(text, {
    shape: { width: s.width, height: s.height },
    cell: s.cell,
    scale: s.scale,
  })) {
    pages.push(page.scanlines.slice());
    chars.push(page.chars);
    escapes.push(page.escapes);
  }
  return { pages, chars, escapes };
}

function wasm(
  core: WasmCore,
  text: string,
  s: Shape,
): { pages: Uint8Array[]; chars: number[]; escapes: number[]; totalEscapes: number } {
  const pages: Uint8Array[] = [];
  const chars: number[] = [];
  const escapes: number[] = [];
  const run = core.pages(text, s);
  for (const page of run) {
    pages.push(page.scanlines.slice());
    chars.push(page.chars);
    escapes.push(page.escapes);
  }
  expect(run.pages).toBe(pages.length);
  expect(run.chars).toBe(chars.reduce((a, b) => a + b, 0));
  return { pages, chars, escapes, totalEscapes: run.escapes };
}

/** Asserts byte equality page by page, naming the first differing byte (page, scanline, column). */
function expectSame(core: WasmCore, text: string, s: Shape): void {
  const want = reference(text, s);
  const got = wasm(core, text, s);
  const where = `${s.cell}@${s.scale} ${s.width}x${s.height}, text ${JSON.stringify(text.slice(0, 60))}…`;
  expect(got.pages.length, `page count, ${where}`).toBe(want.pages.length);
  expect(got.chars, `chars per page, ${where}`).toEqual(want.chars);
  expect(got.escapes, `escapes per page, ${where}`).toEqual(want.escapes);
  const stride = 1 + Math.ceil(s.width / 8);
  for (let p = 0; p < want.pages.length; p++) {
    const a = want.pages[p]!;
    const b = got.pages[p]!;
    expect(b.length).toBe(a.length);
    if (Buffer.compare(a, b) !== 0) {
      let i = 0;
      while (a[i] === b[i]) i++;
      expect.fail(
        `page ${p}, scanline ${Math.floor(i / stride)}, byte ${i % stride}: ` +
          `reference ${a[i]!.toString(2)} wasm ${b[i]!.toString(2)} (${where})`,
      );
    }
  }
  const counts = countPages(text, {
    shape: { width: s.width, height: s.height },
    cell: s.cell,
    scale: s.scale,
  });
  expect(got.totalEscapes, `escapes, ${where}`).toBe(counts.escapes);
  expect(core.count(text, s)).toEqual(counts);
}

/** A shape of cols × rows cells plus a remainder of pixels, so widths are rarely multiples of 8. */
function shapeOf(cell: CellName, scale: number, cols: number, rows: number, extraX = 0, extraY = 0): Shape {
  const { width, height } = CELLS[cell];
  return { cell, scale, width: cols * width * scale + extraX, height: rows * height * scale + extraY };
}

const ADVERSARIAL = [
  '',
  ' ',
  '\n',
  '\r\n\r\n',
  ' \t \n\t\r\n  ',
  'a',
  'hello world',
  'a\tb\tc  \n\n\nxyz  \r\n',
  '\tx\t\ty \t',
  '\r\ra\r\n\rb\n\r',
  '\n\n lead',
  'trailing   \n   \nmiddle\n\n\n',
  'Привет, мир — Ελληνικά, Ünïcödé ½ ░▒▓ └─┘',
  'emoji 😀 and 𝕏 and \u{10FFFF}',
  'lone \ud800 high, lone \udfff low, reversed \udc00\ud800, pair \ud83d\ude00',
  '\ud800',
  '\udc00\n\ud800',
  'controls \u0000\u0001\u001b[0m \u007f \u0085 \u009f',
  'А vs A (Cyrillic vs Latin)',
  '\u00a0nbsp\u00a0\u2007',
  'x'.repeat(1000),
  'word '.repeat(400),
  '😀'.repeat(300),
  ('abc\t'.repeat(50) + '\n').repeat(20),
  'The quick brown fox jumps over the lazy dog. '.repeat(200),
];

describe('wasm core vs the TS reference (byte-identical scanlines)', () => {
  let core: WasmCore;
  beforeAll(async () => {
    core = await loadWasmCore();
  });

  it('matches on adversarial texts for every cell (scale 1–4, or 1 for the added fonts), shapes not multiples of 8 px', () => {
    for (const cell of CELL_NAMES) {
      // Scaling does not depend on the font: the first three cells cover scales 2–4 for all of them
      // (the random-shape test below draws every cell at every scale).
      const maxScale = ['4x6', '5x8', '6x10'].includes(cell) ? 4 : 1;
      for (let scale = 1; scale <= maxScale; scale++) {
        for (const shape of [
          shapeOf(cell, scale, 2, 2),
          shapeOf(cell, scale, 7, 3, 3, 1),
          shapeOf(cell, scale, 19, 5, CELLS[cell].width * scale - 1, 2),
          shapeOf(cell, scale, 40, 9, 5),
        ]) {
          for (const text of ADVERSARIAL) expectSame(core, text, shape);
        }
      }
    }
  });

  it('matches at the benchmark shape (1568×784, 4x6) over prose, code and a line longer than many pages', () => {
    const shape: Shape = { width: 1568, height: 784, cell: '4x6', scale: 1 };
    const prose = 'Compaction rebuilds the request, never the record. '.repeat(3000);
    const code = 'function f(x) {\n\tif (x > 0) {\n\t\treturn x * 2;  \n\t}\n}\n\n'.repeat(2000);
    expectSame(core, prose, shape);
    expectSame(core, code, shape);
    expectSame(core, 'y'.repeat(392 * 130 * 3 + 17), shape);
  });

  it('matches for every row length at every grid width of the group blitters (blank-cell padding of the last group)', () => {
    // Lines of 1..cols+1 characters (the last wraps), so each row ends at every cell of its group and
    // at the scanline's end, where the 4x6 blitter must not pad past the scanline.
    for (const cell of ['4x6', 'gf-6x10', '5x8'] as const) {
      for (let cols = 2; cols <= 19; cols++) {
        const text = Array.from({ length: cols + 1 }, (_, i) => 'Wm#@'.repeat(8).slice(0, i + 1)).join('\n');
        for (let extraX = 0; extraX < CELLS[cell].width; extraX++) {
          expectSame(core, text, shapeOf(cell, 1, cols, cols + 2, extraX));
        }
      }
    }
  });

  it('matches on random Unicode (astral, lone surrogates, controls, CRLF, tabs) at random shapes', () => {
    const unit = fc.oneof(
      { weight: 12, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
      { weight: 5, arbitrary: fc.constantFrom(' ', ' ', '\t', '\n', '\r', '\r\n') },
      { weight: 3, arbitrary: fc.integer({ min: 0xa0, max: 0x52f }).map((c) => String.fromCharCode(c)) },
      { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
      },
    );
    const shape = fc.record({
      cell: fc.constantFrom(...CELL_NAMES),
      scale: fc.integer({ min: 1, max: 4 }),
      cols: fc.integer({ min: 2, max: 30 }),
      rows: fc.integer({ min: 2, max: 6 }),
      extraX: fc.integer({ min: 0, max: 23 }),
      extraY: fc.integer({ min: 0, max: 9 }),
    });
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 400 }), shape, (text, s) => {
        const { width, height } = CELLS[s.cell];
        const extraX = s.extraX % (width * s.scale);
        const extraY = s.extraY % (height * s.scale);
        expectSame(core, text, shapeOf(s.cell, s.scale, s.cols, s.rows, extraX, extraY));
      }),
      { numRuns: 400 },
    );
  });

  it('grows memory for a huge page and a long multi-byte text, and still matches', () => {
    const before = core.memoryBytes;
    const text = ('Ж😀 wide ' + 'é'.repeat(50) + '\n').repeat(3000);
    expectSame(core, text, { width: 8000, height: 8000, cell: '4x6', scale: 1 });
    expect(core.memoryBytes).toBeGreaterThan(before);
    // After growing, smaller pages still render from the same instance.
    expectSame(core, text, shapeOf('5x8', 2, 33, 7, 3));
  });

  it('switches cells and scales back and forth on one instance', () => {
    for (const [cell, scale] of [
      ['6x10', 3],
      ['4x6', 1],
      ['5x8', 1],
      ['4x6', 2],
      ['4x6', 1],
    ] as const) {
      expectSame(core, ADVERSARIAL[12]! + '\n' + ADVERSARIAL[7]!, shapeOf(cell, scale, 11, 4, 1));
    }
  });
});

/** Checks every chunk's CRC (PNG spec §5.3) with zlib's CRC-32, independent of the core's. */
function expectChunkCrcs(png: Uint8Array): void {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const types: string[] = [];
  for (let at = 8; at < png.length;) {
    const length = view.getUint32(at);
    types.push(Buffer.from(png.subarray(at + 4, at + 8)).toString('latin1'));
    expect(view.getUint32(at + 8 + length), `CRC of ${types.at(-1)}`).toBe(
      crc32(png.subarray(at + 4, at + 8 + length)),
    );
    at += 12 + length;
  }
  expect(types).toEqual(['IHDR', 'IDAT', 'IEND']);
}

describe('PNG encoded in the core', () => {
  it('gives valid PNGs (fast-png decodes them, zlib inflates the IDAT to the scanlines) in both modes', async () => {
    const core = await loadWasmCore();
    const text = 'Snapshot pages hold the middle of a history. \t\u00e9\ud83d\ude00\n\n'.repeat(400);
    for (const s of [
      { width: 1568, height: 784, cell: '4x6' as const, scale: 1 },
      { width: 301, height: 97, cell: '5x8' as const, scale: 3 },
      { width: 2000, height: 2000, cell: '6x10' as const, scale: 1 }, // more than one stored block
    ]) {
      for (const mode of ['deflate', 'runs', 'stored'] as const) {
        let pages = 0;
        for (const page of core.pages(text, s)) {
          const png = page.png(mode);
          const img = decodePng(png);
          expect([img.width, img.height, img.depth, img.channels]).toEqual([s.width, s.height, 1, 1]);
          expectChunkCrcs(png);
          const idatLength = new DataView(png.buffer, png.byteOffset).getUint32(33);
          expect(Buffer.compare(inflateSync(png.subarray(41, 41 + idatLength)), page.scanlines)).toBe(0);
          expect(Buffer.compare(png, page.png(mode))).toBe(0); // deterministic
          pages++;
        }
        expect(pages).toBeGreaterThan(0);
      }
    }
  });

  it("'stored' gives the same bytes as png.ts 'fastest' on every path, so render() may use either", async () => {
    const core = await loadWasmCore();
    const text = 'Stored blocks, maximal size. '.repeat(3000);
    for (const s of [
      { width: 1568, height: 784 },
      { width: 3001, height: 999, cell: '5x8' as const, scale: 2 },
    ]) {
      for (const page of core.pages(text, s)) {
        const mine = page.png('stored');
        for (const path of ['zlib', 'fflate'] as const) {
          const image = { width: s.width, height: s.height, scanlines: page.scanlines };
          expect(Buffer.compare(mine, encodePngSync(image, { compression: 'fastest', path }))).toBe(0);
        }
      }
    }
  });

  it('rejects an unknown mode', async () => {
    const core = await loadWasmCore();
    for (const page of core.pages('x', { width: 40, height: 12 })) {
      expect(() => page.png('zip' as 'runs')).toThrow(
        /png mode must be 'deflate', 'runs' or 'stored', found zip/,
      );
    }
  });
});

describe('wasm core API', () => {
  it('rejects bad input with errors that name what was wrong', async () => {
    const core = await loadWasmCore();
    const ok = { width: 100, height: 100 };
    expect(() => core.pages(42 as unknown as string, ok)).toThrow(/text must be a string, found number/);
    expect(() => core.pages('x', { width: 7, height: 100 })).toThrow(/7x100 holds 1x16 cells.*at least 2x2/);
    expect(() => core.pages('x', { ...ok, cell: '9x9' as CellName })).toThrow(/unknown cell '9x9'/);
    expect(() => core.pages('x', { ...ok, scale: 5 })).toThrow(
      /scale must be an integer from 1 to 4, found 5/,
    );
    expect(() => core.pages('x', { width: 10.5, height: 100 })).toThrow(/width must be an integer/);
    expect(() => core.count('x', { width: 100000, height: 100000 })).toThrow(/from 1 to 65535/);
    expect(() => core.count('x', { width: 60000, height: 60000 })).toThrow(
      /more than the .* a page may have/,
    );
  });

  it('makes an earlier run throw once a later run starts on the same core', async () => {
    const core = await loadWasmCore();
    const first = core.pages('a\n'.repeat(100), { width: 40, height: 12 })[Symbol.iterator]();
    expect(first.next().done).toBe(false);
    core.count('b', { width: 40, height: 12 });
    expect(() => first.next()).toThrow(/superseded/);
  });

  it('renders UTF-8 bytes like the string, and skips pages forward within one run', async () => {
    const core = await loadWasmCore();
    const o = { width: 120, height: 40, cell: '5x8' as CellName };
    // Well-formed texts only: UTF-8 cannot carry a lone surrogate (the core reads UTF-16 for those).
    const wellFormed = (t: string): boolean => new TextDecoder().decode(new TextEncoder().encode(t)) === t;
    const text = ADVERSARIAL.filter(wellFormed).join('\n');
    const full: string[] = [];
    for (const p of core.pages(text, o)) full.push(Buffer.from(p.png('deflate')).toString('base64'));
    expect(full.length).toBeGreaterThan(12);
    const utf8 = { utf8: new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text))) };
    new TextEncoder().encodeInto(text, utf8.utf8);
    expect(core.count(utf8, o)).toEqual(core.count(text, o));
    // Pages 2–3, then skip 4 (pages 4–7 laid out, not drawn), then 8 to the end: as in the full run.
    const run = core.pages(utf8, o, 1);
    const it = run[Symbol.iterator]();
    const got: string[] = [];
    for (let k = 0; k < 2; k++) got.push(Buffer.from(it.next().value!.png('deflate')).toString('base64'));
    run.skip(4);
    for (let s = it.next(); !s.done; s = it.next())
      got.push(Buffer.from(s.value.png('deflate')).toString('base64'));
    expect(got).toEqual([...full.slice(1, 3), ...full.slice(7)]);
    expect([run.pages, run.chars]).toEqual([full.length, core.count(text, o).chars]);
    expect(() => core.pages(text, o).skip(-1)).toThrow(/pages must be an integer ≥ 0, found -1/);
    expect(() => core.pages(text, o, 1.5)).toThrow(/from must be an integer ≥ 0, found 1.5/);
    expect(() => core.pages({ utf8: 'x' } as unknown as string, o)).toThrow(
      /text must be a string, found object/,
    );
  });

  it('gives zero pages for text that normalizes to nothing, and totals for the rest', async () => {
    const core = loadWasmCoreSync();
    const empty = core.pages(' \t\r\n \n', { width: 100, height: 100 });
    expect([...empty]).toHaveLength(0);
    expect(core.count('', { width: 100, height: 100 })).toEqual({ pages: 0, chars: 0, escapes: 0 });
    const run = core.pages('a\u0000b\n\ud800', { width: 100, height: 100 });
    expect([...run].map((p) => p.chars)).toEqual([5]);
    expect(run.chars).toBe(5);
    expect(run.escapes).toBe(2);
  });
});

interface ModuleApi {
  new (bytes: Uint8Array): object;
  imports(module: object): { module: string; name: string }[];
  exports(module: object): { name: string; kind: string }[];
}

describe('the module', () => {
  const bytes = Buffer.from(WASM_BASE64, 'base64');
  /** Budget for the release build: it is 4.4 KB today; a jump past this means a runtime or a
   *  library crept in (e.g. the GC runtime or string support). */
  // 8 KB until the group blitter for cells other than 4x6 (blit.ts blitGroups, ~1.2 KB) bought those
  // variants 2.5–3× throughput; 10 KB until the page deflate (deflate.ts, ~5 KB: LZ77, Huffman code
  // construction, the header's code-length coding) made snapshot pages 5× smaller than stored blocks.
  // The column parser of the deflate (issue 16's speed: SIMD band keys, per-row expansion) brought it
  // to 16,358 bytes. 20 KB since issue 16's speed work of its third session: the deflate (~1.3 KB:
  // the bands' ink extents and white-tail matches, the sampled literal histogram, branch-free literal
  // tails and hash checks, a Shell sort for the code build) bought 13% less CPU per page and 1% fewer
  // bytes; the checksums and drawing (~0.5 KB: CRC-32 sliced by 16, Adler-32 as SIMD column sums,
  // takeCells 16 bytes at a time, the 4x6 blitter's scalar index loads) 1.11× text → PNG per CPU
  // second; the layout state export (~0.7 KB: index.ts saveLayout/restoreLayout, text.ts
  // saveState/restoreState) lets a pool worker start its chunk from the state of its first page
  // instead of laying out every page before it. 20.5 KB since issue 16's sixth session: the
  // literal/length codes learnt once per shape from a sample page (~0.45 KB: index.ts learnSample,
  // deflate.ts learnSlot/pickSlot; the per-page literal count it replaced was trimmed) take ~13 µs
  // (7%) off each 4x6 page for ~3.5% more bytes; with the fallback to a page's own code for text
  // unlike the sample (~0.35 KB: deflate.ts countSeqLits/sumLits; 20,904 bytes in all), ~9 µs.
  // A change that needs more should trim first or say what it buys.
  // The budget still catches an accidental runtime or library pull-in.
  const BUDGET = 20.5 * 1024;

  it(`stays under ${BUDGET} bytes and imports nothing`, () => {
    expect(bytes.length).toBe(WASM_BYTES);
    expect(bytes.length).toBeLessThan(BUDGET);
    // The ES2023 lib used here does not declare the WebAssembly JS API.
    const { Module } = (globalThis as unknown as { WebAssembly: { Module: ModuleApi } }).WebAssembly;
    const mod = new Module(bytes);
    expect(Module.imports(mod)).toEqual([]);
    expect(Module.exports(mod).map((e) => e.name)).toContain('memory');
  });

  it('embeds the current build/glyphfold.wasm (run npm run build:wasm after editing assembly/)', () => {
    const built = 'build/glyphfold.wasm';
    if (!existsSync(built)) return; // a tarball install ships only the embedded copy
    expect(Buffer.compare(readFileSync(built), bytes)).toBe(0);
  });
});
