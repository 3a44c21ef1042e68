/**
 * Renderer suites (issue 2): `render` (text → scanlines, WASM core vs TS reference), `encode`
 * (scanlines → PNG per deflate path), `pipeline` (text → PNG bytes), `coldstart` (fresh process:
 * import → first PNG) and `competitor` (@napi-rs/canvas drawing the same text). All on 1568×784
 * pages, 4x6 cell, English prose from bench/corpus.ts. Each row gives wall-clock figures (tinybench
 * p50) and CPU-time figures (process.cpuUsage around each call): the machine is shared, so CPU time
 * and the ratios measured side by side in one run are what to compare.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants, deflateSync } from 'node:zlib';
import { encode as fastPngEncode } from 'fast-png';
import { Bench } from 'tinybench';
import { parseVariant, render } from '../src/render/index.js';
import { assemblePng, encodePng, encodePngSync, loadFflate } from '../src/render/png.js';
import { renderScanlines } from '../src/render/reference.js';
import { loadWasmCore, type CoreDeflate, type WasmCore } from '../src/render/wasm.js';
import { englishProse } from './corpus.js';
import type { BenchContext, BenchResult, BenchSuite } from './suite.js';

const WIDTH = 1568;
const HEIGHT = 784;
const CELL = '4x6';
const SHAPE = `${WIDTH}x${HEIGHT}`;
const COLS = WIDTH / 4;
const ROWS = Math.floor(HEIGHT / 6);

interface Timing {
  /** Median wall-clock milliseconds per call (tinybench p50). */
  ms: number;
  /** Mean CPU milliseconds (user + system) per call: less distorted when other processes share the cores. */
  cpuMs: number;
}

/** Times each task in one tinybench run (side by side), wall p50 and mean CPU time per call. */
async function measure(
  ctx: BenchContext,
  tasks: Record<string, () => unknown>,
): Promise<Record<string, Timing>> {
  const bench = new Bench({
    time: ctx.quick ? 150 : 1500,
    iterations: ctx.quick ? 2 : 8,
    warmupTime: ctx.quick ? 50 : 300,
    warmupIterations: 2,
  });
  const cpu: Record<string, { total: number; calls: number }> = {};
  const cpuNow = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  for (const [name, fn] of Object.entries(tasks)) {
    const c = (cpu[name] = { total: 0, calls: 0 });
    bench.add(name, async () => {
      const t = cpuNow();
      await fn();
      c.total += cpuNow() - t;
      c.calls++;
    });
  }
  await bench.run();
  const out: Record<string, Timing> = {};
  for (const task of bench.tasks) {
    const r = task.result;
    if (r.state !== 'completed') {
      throw new Error(`bench task ${task.name} ${r.state}: ${String('error' in r ? r.error : '')}`);
    }
    const c = cpu[task.name]!;
    out[task.name] = { ms: r.latency.p50, cpuMs: c.total / c.calls };
    ctx.log(
      `${task.name}: p50 ${r.latency.p50.toFixed(3)} ms, mean ${r.latency.mean.toFixed(3)} ms, ` +
        `cpu ${(c.total / c.calls).toFixed(3)} ms, ${r.latency.samplesCount} samples`,
    );
  }
  return out;
}

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));

function row(
  suite: string,
  impl: string,
  chars: number,
  pages: number,
  t: Timing,
  extra: Partial<BenchResult> = {},
): BenchResult {
  return {
    suite,
    impl,
    shape: SHAPE,
    cell: CELL,
    mcharsPerSec: round(chars / t.ms / 1000, 1),
    msPerPage: round(t.ms / pages),
    mcharsPerCpuSec: round(chars / t.cpuMs / 1000, 1),
    cpuMsPerPage: round(t.cpuMs / pages),
    charsPerPage: Math.round(chars / pages),
    ...extra,
  };
}

/** A ratio row: `a` over `b` in throughput, wall-clock and CPU time. */
function ratio(suite: string, impl: string, a: Timing, b: Timing): BenchResult {
  return {
    suite,
    impl,
    shape: SHAPE,
    cell: CELL,
    ratio: round(b.ms / a.ms, 2),
    cpuRatio: round(b.cpuMs / a.cpuMs, 2),
  };
}

function textFor(ctx: BenchContext): string {
  return englishProse(ctx.quick ? 400_000 : 4_000_000);
}

function drainWasm(core: WasmCore, text: string): number {
  let pages = 0;
  for (const _ of core.pages(text, { width: WIDTH, height: HEIGHT, cell: CELL })) pages++;
  return pages;
}

function drainTs(text: string): number {
  let pages = 0;
  for (const _ of renderScanlines(text, { shape: { width: WIDTH, height: HEIGHT }, cell: CELL })) pages++;
  return pages;
}

const renderSuite: BenchSuite = {
  name: 'render',
  async run(ctx) {
    const text = textFor(ctx);
    const core = await loadWasmCore();
    const pages = drainWasm(core, text);
    if (drainTs(text) !== pages) throw new Error('render: wasm and ts disagree on the page count');
    ctx.log(`${text.length} chars of prose, ${pages} pages`);
    const t = await measure(ctx, { wasm: () => drainWasm(core, text), ts: () => drainTs(text) });
    return [
      row('render', 'wasm', text.length, pages, t.wasm!),
      row('render', 'ts', text.length, pages, t.ts!),
      ratio('render', 'wasm/ts', t.wasm!, t.ts!),
    ];
  },
};

/**
 * The same side-by-side measurement for page variants other than 4x6 (docs/renderer.md §2, §4): the
 * 4x6 SIMD blitter does not apply to them, so their core path is the general one. Same text, pages of
 * the same size, one tinybench run for all rows.
 */
const VARIANTS = ['6x9', 'gf-6x10', '6x10', '6x10+flow'];

const variantsSuite: BenchSuite = {
  name: 'variants',
  async run(ctx) {
    const text = textFor(ctx);
    const core = await loadWasmCore();
    const tasks: Record<string, () => unknown> = {};
    const pagesOf: Record<string, number> = {};
    for (const variant of VARIANTS) {
      const v = parseVariant(variant);
      const options = { width: WIDTH, height: HEIGHT, ...v };
      const wasm = (): number => {
        let pages = 0;
        for (const _ of core.pages(text, options)) pages++;
        return pages;
      };
      const ts = (): number => {
        let pages = 0;
        for (const _ of renderScanlines(text, { shape: { width: WIDTH, height: HEIGHT }, variant })) pages++;
        return pages;
      };
      pagesOf[variant] = wasm();
      if (ts() !== pagesOf[variant]) throw new Error(`variants: wasm and ts disagree on ${variant}`);
      tasks[`wasm ${variant}`] = wasm;
      tasks[`ts ${variant}`] = ts;
    }
    const t = await measure(ctx, tasks);
    return VARIANTS.flatMap((variant) => [
      { ...row('variants', 'wasm', text.length, pagesOf[variant]!, t[`wasm ${variant}`]!), cell: variant },
      { ...row('variants', 'ts', text.length, pagesOf[variant]!, t[`ts ${variant}`]!), cell: variant },
      { ...ratio('variants', 'wasm/ts', t[`wasm ${variant}`]!, t[`ts ${variant}`]!), cell: variant },
    ]);
  },
};

/** Copies of the first pages of the prose (deflate time depends on the content). */
async function samplePages(count: number): Promise<{ pages: Uint8Array[]; chars: number; text: string }> {
  const core = await loadWasmCore();
  const text = englishProse(60_000 * count);
  const pages: Uint8Array[] = [];
  let chars = 0;
  for (const page of core.pages(text, { width: WIDTH, height: HEIGHT, cell: CELL })) {
    pages.push(page.scanlines.slice());
    chars += page.chars;
    if (pages.length === count) break;
  }
  return { pages, chars, text };
}

/** fast-png wants packed rows without filter bytes. */
function packedRows(scanlines: Uint8Array): Uint8Array {
  const stride = 1 + Math.ceil(WIDTH / 8);
  const out = new Uint8Array(HEIGHT * (stride - 1));
  for (let y = 0; y < HEIGHT; y++)
    out.set(scanlines.subarray(y * stride + 1, (y + 1) * stride), y * (stride - 1));
  return out;
}

const encodeSuite: BenchSuite = {
  name: 'encode',
  async run(ctx) {
    const count = ctx.quick ? 2 : 8;
    const { pages, chars, text } = await samplePages(count);
    await loadFflate();
    const core = await loadWasmCore();
    // The core encodes the page where it drew it, so its rows include drawing the page (~2–5% here).
    const coreAll = (mode: CoreDeflate) => () => {
      let bytes = 0;
      let n = 0;
      for (const page of core.pages(text, { width: WIDTH, height: HEIGHT, cell: CELL })) {
        bytes += page.png(mode).length;
        if (++n === count) break;
      }
      sizes[`core-${mode}`] = bytes;
    };
    const packed = pages.map(packedRows);
    const image = (scanlines: Uint8Array) => ({ width: WIDTH, height: HEIGHT, scanlines });
    const sizes: Record<string, number> = {};
    const each = (name: string, encode: (i: number) => Uint8Array) => () => {
      let bytes = 0;
      for (let i = 0; i < pages.length; i++) bytes += encode(i).length;
      sizes[name] = bytes;
    };
    const tasks: Record<string, () => unknown> = {
      'zlib-level1': each('zlib-level1', (i) => encodePngSync(image(pages[i]!), { path: 'zlib' })),
      'zlib-fastest': each('zlib-fastest', (i) =>
        encodePngSync(image(pages[i]!), { path: 'zlib', compression: 'fastest' }),
      ),
      'zlib-level0': each('zlib-level0', (i) => deflateSync(pages[i]!, { level: 0 })),
      'core-deflate': coreAll('deflate'),
      'core-runs': coreAll('runs'),
      'core-stored': coreAll('stored'),
      fflate: each('fflate', (i) => encodePngSync(image(pages[i]!), { path: 'fflate' })),
      'fast-png': each('fast-png', (i) =>
        fastPngEncode({ width: WIDTH, height: HEIGHT, data: packed[i]!, depth: 1, channels: 1 }),
      ),
      'compression-stream': async () => {
        let bytes = 0;
        for (const p of pages) bytes += (await encodePng(image(p), { path: 'stream' })).length;
        sizes['compression-stream'] = bytes;
      },
    };
    const t = await measure(ctx, tasks);
    return Object.keys(tasks).map((name) =>
      row('encode', name, chars, pages.length, t[name]!, {
        kbPerPage: round(sizes[name]! / pages.length / 1024, 1),
      }),
    );
  },
};

type PipelineMode =
  'default' | 'fastest' | 'core-deflate' | 'core-runs' | 'core-stored' | 'js-stored' | 'zlib-l6-rle';

/** Text → PNG bytes: the WASM core or the TS reference, then
 *  - `default`: png.ts 'default' on node:zlib, level 1 (what render() does on the TS engine);
 *  - `fastest`: for the core its in-memory stored PNG (what render() does), for TS png.ts 'fastest';
 *  - `core-deflate`: the core's page deflate (what render()'s 'default' does on the WASM engine);
 *  - `core-runs` / `core-stored`: the core's other PNG encoders (assembly/png.ts);
 *  - `js-stored`: png.ts 'fastest' (stored blocks, JS CRC) on the core's scanlines (render()'s
 *    'fastest' before it used the core's encoder);
 *  - `zlib-l6-rle`: zlib level 6 + Z_RLE + JS CRC (the previous 'default', kept for the ratio). */
function pipeline(core: WasmCore | undefined, text: string, mode: PipelineMode): number {
  let bytes = 0;
  const options = { width: WIDTH, height: HEIGHT, cell: CELL } as const;
  if (
    core &&
    (mode === 'core-deflate' || mode === 'core-runs' || mode === 'core-stored' || mode === 'fastest')
  ) {
    const deflate = mode === 'core-deflate' ? 'deflate' : mode === 'core-runs' ? 'runs' : 'stored';
    for (const page of core.pages(text, options)) bytes += page.png(deflate).length;
    return bytes;
  }
  const compression = mode === 'fastest' || mode === 'js-stored' ? 'fastest' : 'default';
  const pages = core ? core.pages(text, options) : renderScanlines(text, { shape: options, cell: CELL });
  for (const page of pages) {
    bytes +=
      mode === 'zlib-l6-rle'
        ? assemblePng(WIDTH, HEIGHT, deflateSync(page.scanlines, { level: 6, strategy: constants.Z_RLE }))
            .length
        : encodePngSync(
            { width: WIDTH, height: HEIGHT, scanlines: page.scanlines },
            { path: 'zlib', compression },
          ).length;
  }
  return bytes;
}

/** The public API end to end (pages collected in a result, as a caller gets them). */
async function renderApi(text: string, compression: 'default' | 'fastest'): Promise<number> {
  return (await render(text, { shape: { width: WIDTH, height: HEIGHT }, cell: CELL, compression })).bytes;
}

const pipelineSuite: BenchSuite = {
  name: 'pipeline',
  async run(ctx) {
    const text = englishProse(ctx.quick ? 200_000 : 1_000_000);
    const core = await loadWasmCore();
    const pages = core.count(text, { width: WIDTH, height: HEIGHT, cell: CELL }).pages;
    const impls: [string, WasmCore | undefined, PipelineMode][] = [
      ['wasm-core-deflate', core, 'core-deflate'],
      ['wasm-zlib-level1', core, 'default'],
      ['wasm-fastest', core, 'fastest'],
      ['wasm-core-runs', core, 'core-runs'],
      ['wasm-js-stored', core, 'js-stored'],
      ['wasm-zlib-l6-rle', core, 'zlib-l6-rle'],
      ['ts-default', undefined, 'default'],
      ['ts-fastest', undefined, 'fastest'],
    ];
    const tasks: Record<string, () => unknown> = Object.fromEntries(
      impls.map(([name, c, m]) => [name, () => pipeline(c, text, m)]),
    );
    tasks['render-default'] = () => renderApi(text, 'default');
    tasks['render-fastest'] = () => renderApi(text, 'fastest');
    const t = await measure(ctx, tasks);
    const rows = impls.map(([name, c, m]) =>
      row('pipeline', name, text.length, pages, t[name]!, {
        kbPerPage: round(pipeline(c, text, m) / pages / 1024, 1),
      }),
    );
    for (const mode of ['default', 'fastest'] as const) {
      rows.push(
        row('pipeline', `render-${mode}`, text.length, pages, t[`render-${mode}`]!, {
          kbPerPage: round((await renderApi(text, mode)) / pages / 1024, 1),
        }),
      );
    }
    rows.push(
      ratio('pipeline', 'core-deflate vs zlib-level1', t['wasm-core-deflate']!, t['wasm-zlib-level1']!),
    );
    return rows;
  },
};

/** The child of `coldstart`: timestamps just before importing the built `glyphfold/render`
 *  (dist/bundle/render/index.js, what the package exports) and when render() hands over the first PNG
 *  (default compression). */
const COLDSTART_CHILD = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const c0 = cpu();
const t0 = performance.now();
const { render } = await import(process.argv[1] + '/render/index.js');
const t1 = performance.now();
let t2 = 0;
let c2 = 0;
const text = 'The first page of a snapshot. '.repeat(1500);
const result = await render(text, { shape: { width: 1568, height: 784 }, onPage: () => { if (!t2) { t2 = performance.now(); c2 = cpu(); } } });
process.stdout.write(JSON.stringify({ importMs: t1 - t0, importToPng: t2 - t0, cpuImportToPng: c2 - c0, pages: result.pages.length }));
`;

const coldstartSuite: BenchSuite = {
  name: 'coldstart',
  async run(ctx) {
    const dist = new URL('../dist/bundle', import.meta.url).pathname;
    if (!existsSync(`${dist}/render/index.js`)) {
      ctx.log('coldstart: dist/bundle/render/index.js missing; run `npm run build` first');
      return [{ suite: 'coldstart', impl: 'wasm', skipped: 'dist not built (npm run build)' }];
    }
    const runs = ctx.quick ? 3 : 15;
    const inside: number[] = [];
    const imports: number[] = [];
    const cpus: number[] = [];
    const whole: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', COLDSTART_CHILD, dist], {
        encoding: 'utf8',
      });
      whole.push(performance.now() - t);
      if (child.status !== 0) throw new Error(`coldstart child failed: ${child.stderr}`);
      const timing = JSON.parse(child.stdout) as {
        importMs: number;
        importToPng: number;
        cpuImportToPng: number;
      };
      cpus.push(timing.cpuImportToPng);
      inside.push(timing.importToPng);
      imports.push(timing.importMs);
      t = performance.now();
      spawnSync(process.execPath, ['-e', '0']);
      bare.push(performance.now() - t);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return [
      {
        suite: 'coldstart',
        impl: 'wasm',
        shape: SHAPE,
        cell: CELL,
        importToFirstPngMs: round(median(inside), 1),
        importMs: round(median(imports), 1),
        cpuImportToFirstPngMs: round(median(cpus), 1),
        processMs: round(median(whole), 1),
        nodeBareMs: round(median(bare), 1),
        processOverBareMs: round(median(whole) - median(bare), 1),
      },
    ];
  },
};

interface CanvasModule {
  createCanvas(
    width: number,
    height: number,
  ): {
    getContext(kind: '2d'): {
      font: string;
      fillStyle: string;
      textBaseline: string;
      fillRect(x: number, y: number, w: number, h: number): void;
      fillText(text: string, x: number, y: number): void;
    };
    toBuffer(mime: 'image/png'): Uint8Array;
  };
}

/** The same text, hard-wrapped to the same grid (392 columns × 130 rows), drawn with Skia's text. */
function canvasPipeline(canvas: CanvasModule, text: string): { pages: number; bytes: number } {
  const rows: string[] = [];
  for (const line of text.split('\n')) {
    if (line.length === 0) rows.push('');
    for (let i = 0; i < line.length; i += COLS) rows.push(line.slice(i, i + COLS));
  }
  const c = canvas.createCanvas(WIDTH, HEIGHT);
  const g = c.getContext('2d');
  let pages = 0;
  let bytes = 0;
  for (let r = 0; r < rows.length; r += ROWS) {
    g.fillStyle = '#fff';
    g.fillRect(0, 0, WIDTH, HEIGHT);
    g.fillStyle = '#000';
    g.font = '6.6px monospace'; // ~4 px advance: 392 columns in 1568 px, like the 4x6 cell
    g.textBaseline = 'top';
    for (let k = 0; k < ROWS && r + k < rows.length; k++) g.fillText(rows[r + k]!, 0, k * 6);
    bytes += c.toBuffer('image/png').length;
    pages++;
  }
  return { pages, bytes };
}

const competitorSuite: BenchSuite = {
  name: 'competitor',
  async run(ctx) {
    let canvas: CanvasModule;
    try {
      canvas = (await import('@napi-rs/canvas')) as unknown as CanvasModule;
    } catch (error) {
      ctx.log(`competitor: @napi-rs/canvas not available (${String(error)})`);
      return [{ suite: 'competitor', impl: '@napi-rs/canvas', skipped: 'not installed' }];
    }
    const text = englishProse(ctx.quick ? 100_000 : 400_000);
    const core = await loadWasmCore();
    const pages = core.count(text, { width: WIDTH, height: HEIGHT, cell: CELL }).pages;
    const canvasPages = canvasPipeline(canvas, text).pages;
    const t = await measure(ctx, {
      'glyphfold-wasm-default': () => pipeline(core, text, 'core-deflate'),
      'glyphfold-wasm-core-stored': () => pipeline(core, text, 'core-stored'),
      '@napi-rs/canvas': () => canvasPipeline(canvas, text),
    });
    const canvasT = t['@napi-rs/canvas']!;
    return [
      row('competitor', '@napi-rs/canvas', text.length, canvasPages, canvasT),
      row('competitor', 'glyphfold-wasm-default', text.length, pages, t['glyphfold-wasm-default']!),
      row('competitor', 'glyphfold-wasm-core-stored', text.length, pages, t['glyphfold-wasm-core-stored']!),
      ratio('competitor', 'default/canvas', t['glyphfold-wasm-default']!, canvasT),
      ratio('competitor', 'core-stored/canvas', t['glyphfold-wasm-core-stored']!, canvasT),
    ];
  },
};

export const RENDER_SUITES: readonly BenchSuite[] = [
  renderSuite,
  variantsSuite,
  encodeSuite,
  pipelineSuite,
  coldstartSuite,
  competitorSuite,
];
