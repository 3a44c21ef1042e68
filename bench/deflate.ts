/**
 * Issue 16 suites. `deflate-bytes`: PNG bytes per page of the core's page deflate next to zlib level
 * 1 and 9 (node:zlib on the same scanlines, same PNG framing) on prose, code and log pages.
 * `deflate-speed`: text → PNG on one thread, side by side in one tinybench run: the core's stored,
 * runs and deflate encoders and zlib level 1. `pool`: 200 pages, render() vs the worker pool.
 * `identity`: the same pages' sha256 in this process, a child process and every other JS runtime
 * installed (bun, deno).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { Worker } from 'node:worker_threads';
import { Bench } from 'tinybench';
import { parseVariant, render } from '../src/render/index.js';
import { WASM_BYTES } from '../src/render/generated/wasm.js';
import { assemblePng } from '../src/render/png.js';
import {
  loadWasmCore,
  wasmModule,
  type CoreDeflate,
  type Utf8Text,
  type WasmPageOptions,
} from '../src/render/wasm.js';
import { englishProse, serviceLog, sourceCode } from './corpus.js';
import type { BenchResult, BenchSuite } from './suite.js';

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));
const SHAPES: { variant: string; width: number; height: number }[] = [
  { variant: '4x6', width: 1568, height: 784 },
  { variant: 'gf-6x10', width: 1568, height: 784 },
  { variant: 'gf-6x10', width: 336, height: 1566 },
];
const KINDS: Record<string, (chars: number) => string> = {
  prose: englishProse,
  code: sourceCode,
  log: serviceLog,
};

function pageOptions(s: { variant: string; width: number; height: number }): WasmPageOptions {
  return { width: s.width, height: s.height, ...parseVariant(s.variant) };
}

const bytesSuite: BenchSuite = {
  name: 'deflate-bytes',
  async run(ctx) {
    const core = await loadWasmCore();
    const rows: BenchResult[] = [];
    const maxPages = ctx.quick ? 3 : 12;
    for (const s of SHAPES) {
      for (const [kind, make] of Object.entries(KINDS)) {
        const text = make(maxPages * 60_000);
        const sum = { core: 0, runs: 0, stored: 0, z1: 0, z9: 0, pages: 0 };
        for (const page of core.pages(text, pageOptions(s))) {
          sum.core += page.png('deflate').length;
          sum.runs += page.png('runs').length;
          sum.stored += page.png('stored').length;
          sum.z1 += assemblePng(
            s.width,
            s.height,
            deflateSync(page.scanlines, { level: 1, memLevel: 9 }),
          ).length;
          sum.z9 += assemblePng(
            s.width,
            s.height,
            deflateSync(page.scanlines, { level: 9, memLevel: 9 }),
          ).length;
          if (++sum.pages === maxPages) break;
        }
        const kb = (n: number): number => round(n / sum.pages / 1024, 1);
        rows.push({
          suite: 'deflate-bytes',
          impl: kind,
          shape: `${s.width}x${s.height}`,
          cell: s.variant,
          pages: sum.pages,
          kbCoreDeflate: kb(sum.core),
          kbZlib1: kb(sum.z1),
          kbZlib9: kb(sum.z9),
          kbRuns: kb(sum.runs),
          kbStored: kb(sum.stored),
          vsZlib1: round(sum.core / sum.z1, 2),
          vsZlib9: round(sum.core / sum.z9, 2),
        });
      }
    }
    return rows;
  },
};

type Mode = CoreDeflate | 'zlib-1';

function pipeline(
  core: Awaited<ReturnType<typeof loadWasmCore>>,
  text: string,
  o: WasmPageOptions,
  mode: Mode,
): number {
  let bytes = 0;
  for (const page of core.pages(text, o)) {
    bytes +=
      mode === 'zlib-1'
        ? assemblePng(o.width, o.height, deflateSync(page.scanlines, { level: 1, memLevel: 9 })).length
        : page.png(mode).length;
  }
  return bytes;
}

const speedSuite: BenchSuite = {
  name: 'deflate-speed',
  async run(ctx) {
    const core = await loadWasmCore();
    const rows: BenchResult[] = [];
    for (const s of [SHAPES[0]!, SHAPES[1]!]) {
      const o = pageOptions(s);
      const text = englishProse(ctx.quick ? 200_000 : 1_000_000);
      const pages = core.count(text, o).pages;
      const modes: Mode[] = ['stored', 'runs', 'deflate', 'zlib-1'];
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
      for (const m of modes) {
        const c = (cpu[m] = { total: 0, calls: 0 });
        bench.add(m, () => {
          const t = cpuNow();
          pipeline(core, text, o, m);
          c.total += cpuNow() - t;
          c.calls++;
        });
      }
      await bench.run();
      for (const task of bench.tasks) {
        const r = task.result;
        if (r.state !== 'completed') throw new Error(`deflate-speed ${task.name}: ${r.state}`);
        const c = cpu[task.name]!;
        const cpuMs = c.total / c.calls;
        ctx.log(`${s.variant} ${task.name}: p50 ${r.latency.p50.toFixed(2)} ms, cpu ${cpuMs.toFixed(2)} ms`);
        rows.push({
          suite: 'deflate-speed',
          impl: task.name,
          shape: `${s.width}x${s.height}`,
          cell: s.variant,
          mcharsPerSec: round(text.length / r.latency.p50 / 1000, 1),
          mcharsPerCpuSec: round(text.length / cpuMs / 1000, 1),
          kbPerPage: round(pipeline(core, text, o, task.name as Mode) / pages / 1024, 1),
        });
      }
    }
    rows.push({ suite: 'deflate-speed', impl: 'module', wasmBytes: WASM_BYTES });
    return rows;
  },
};

/**
 * Orders of 0..n-1 (a Williams design): over all rows, each index comes in every position and right
 * after every other index equally often (n rows for even n, 2n for odd n).
 */
export function balancedOrders(n: number): number[][] {
  const first = Array.from({ length: n }, (_, k) => (k % 2 ? (k + 1) / 2 : (n - k / 2) % n));
  const rows = Array.from({ length: n }, (_, r) => first.map((x) => (x + r) % n));
  return n % 2 ? [...rows, ...rows.map((row) => [...row].reverse())] : rows;
}

/** Median of a list of numbers. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** CPU milliseconds of this process so far, all threads (the pool's workers included). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * CPU milliseconds of each thread of this process so far (Linux: /proc/self/task/<tid>/stat, utime +
 * stime in clock ticks of 10 ms; empty elsewhere). Node's worker threads and V8's background threads
 * (GC, compilation) are threads of the process, so this says where a render's CPU goes.
 */
function threadCpuMs(): Map<string, number> {
  const cpu = new Map<string, number>();
  if (process.platform !== 'linux') return cpu;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu.set(tid, (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return cpu;
}

/** Per-thread CPU summed over the calls of one kind: thread id → ms. */
function addThreadCpu(
  into: Map<string, number>,
  before: Map<string, number>,
  after: Map<string, number>,
): void {
  for (const [tid, ms] of after) into.set(tid, (into.get(tid) ?? 0) + ms - (before.get(tid) ?? 0));
}

/**
 * Per-call CPU of the calling thread, of the threads that did most of the work (a fifth of the
 * calls' CPU or more: the pool's workers, the ceiling's threads), and of the rest (V8's background
 * threads, libuv). Ticks of 10 ms: meaningful over tens of calls only.
 */
function splitThreadCpu(
  cpu: Map<string, number>,
  calls: number,
): { calling: number; workers: number; other: number } {
  const total = [...cpu.values()].reduce((a, b) => a + b, 0);
  const split = { calling: 0, workers: 0, other: 0 };
  for (const [tid, ms] of cpu) {
    if (tid === String(process.pid)) split.calling += ms;
    else if (ms >= total / 5) split.workers += ms;
    else split.other += ms;
  }
  return { calling: split.calling / calls, workers: split.workers / calls, other: split.other / calls };
}

/**
 * The ceiling of the `pool` suite: a thread that renders pages [from, to) of a text on its own core,
 * started from the layout state of `from` (taken once, before the clock), with no count, no chunks
 * and one message at the end. Its PNGs go into one buffer it keeps from call to call (no fresh memory
 * to fault in, nothing for the calling thread to collect); a first call transfers them to check the
 * bytes. Two of them on two halves against one on all the pages is the speed-up the hardware allows
 * this workload: an upper bound for a pool, which must hand over new buffers.
 * Always the built core (dist/): the pool's own code is not what it measures.
 */
const CEILING_WORKER = (wasm: string): string => `
const { parentPort, workerData } = require('node:worker_threads');
import(${JSON.stringify(wasm)}).then(async ({ loadWasmCoreFrom }) => {
  const core = await loadWasmCoreFrom(workerData.module);
  let size = 1 << 20;
  let kept = Buffer.alloc(0);
  parentPort.on('message', ({ text, options, mode, from, to, state, keep }) => {
    const run = core.pages(text, options);
    if (state) run.restore(state, from);
    let out = keep && kept.length >= size ? kept : Buffer.allocUnsafeSlow(size);
    let bytes = 0;
    const pages = run[Symbol.iterator]();
    let page = from;
    for (; page < to; page++) {
      const step = pages.next();
      if (step.done) break;
      const png = step.value.pngView(mode);
      if (bytes + png.length > out.length) {
        const grown = Buffer.allocUnsafeSlow(2 * (bytes + png.length));
        out.copy(grown, 0, 0, bytes);
        out = grown;
      }
      out.set(png, bytes);
      bytes += png.length;
    }
    size = Math.max(size, Math.ceil(bytes * 1.1));
    if (keep) {
      kept = out;
      parentPort.postMessage({ png: new Uint8Array(0), pages: page - from });
      return;
    }
    const png = new Uint8Array(out.buffer, out.byteOffset, bytes);
    parentPort.postMessage({ png, pages: page - from }, [out.buffer]);
  });
  parentPort.postMessage('ready');
});
`;

interface CeilingThread {
  /** The pages' PNGs one after another; with `keep`, none (the thread keeps them in its own buffer). */
  render(job: { from: number; to: number; state: Int32Array | null; keep?: boolean }): Promise<Uint8Array>;
  close(): Promise<number>;
}

async function ceilingThread(
  wasmUrl: string,
  text: Utf8Text,
  options: WasmPageOptions,
  mode: CoreDeflate,
): Promise<CeilingThread> {
  const worker = new Worker(CEILING_WORKER(wasmUrl), {
    eval: true,
    workerData: { module: await wasmModule() },
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    render: ({ from, to, state, keep = false }) =>
      new Promise((resolve, reject) => {
        worker.once('message', (m: { png: Uint8Array; pages: number }) =>
          m.pages === to - from
            ? resolve(m.png)
            : reject(new Error(`ceiling: expected ${to - from} pages from ${from}, found ${m.pages}`)),
        );
        worker.postMessage({ text, options, mode, from, to, state, keep });
      }),
    close: () => worker.terminate(),
  };
}

/**
 * `pool`: ~200 pages, `render()` on this thread vs the worker pool (one worker per core), alternated
 * call by call in one run so that a change of machine load hits both alike. The pool is warmed first
 * (its start-up is its own row figure); wall-clock medians give the speed-up, process CPU (all
 * threads) per render gives the pool's overhead, and the load average before and after labels the
 * run: on a machine busy with other work the wall-clock ratio says little about idle cores.
 */
/**
 * `pool` measures the built package (dist/, as users run it; scripts/ensure-build.mjs rebuilds it
 * before `npm run bench`): from the sources each worker boots through tsx and runs slower than any user
 * sees. `GLYPHFOLD_BENCH_POOL=src` measures the sources instead (the tests' path). Serial and pool come
 * from the same build, side by side in one run.
 */
const poolSuite: BenchSuite = {
  name: 'pool',
  async run(ctx) {
    const from = process.env.GLYPHFOLD_BENCH_POOL === 'src' ? 'src' : 'dist';
    const root = new URL(from === 'src' ? '../src/' : '../dist/', import.meta.url);
    type RenderModule = typeof import('../src/render/index.js');
    type PoolModule = typeof import('../src/render-node/index.js');
    const { render } = (await import(new URL('render/index.js', root).href)) as RenderModule;
    const { createRenderPool } = (await import(new URL('render-node/index.js', root).href)) as PoolModule;
    // GLYPHFOLD_BENCH_POOL_BASE=<a dist/ directory> (another build of the package, e.g. main's): its pool
    // too, alternated with the others in the same run, for a before/after side by side.
    const baseDir = process.env.GLYPHFOLD_BENCH_POOL_BASE;
    const base =
      baseDir === undefined
        ? undefined
        : (
            (await import(pathToFileURL(join(resolve(baseDir), 'render-node/index.js')).href)) as PoolModule
          ).createRenderPool({ size: availableParallelism() });
    const shape = { width: 1568, height: 784 };
    const core = await loadWasmCore();
    const target = ctx.quick ? 20 : 200;
    const sample = core.count(englishProse(200_000), { ...shape, cell: '4x6' });
    const perPage = sample.chars / sample.pages;
    let text = englishProse(Math.ceil(target * perPage));
    // Once more with the measured pages, so the run has about `target` pages.
    text = englishProse(
      Math.ceil((text.length * target) / core.count(text, { ...shape, cell: '4x6' }).pages),
    );
    const cores = availableParallelism();
    const loadBefore = loadavg();
    const started = performance.now();
    const pool = createRenderPool({ size: cores });
    // One worker per core but one, and the calling thread renders a share too (callerRenders).
    const caller = createRenderPool({ callerRenders: true });
    const rows: BenchResult[] = [];
    try {
      await pool.warm();
      await caller.warm();
      await base?.warm();
      const startupMs = performance.now() - started;
      const wasmUrl = new URL('../dist/render/wasm.js', import.meta.url).href;
      const o = pageOptions({ variant: '4x6', ...shape });
      // The ceiling's text, encoded once into shared memory (as the pool shares it), and the layout
      // state of the second half's first page.
      const utf8 = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text)));
      new TextEncoder().encodeInto(text, utf8);
      const shared: Utf8Text = { utf8 };
      const states: Int32Array[] = [];
      const total = core.pages(shared, o).layOut(2 ** 31 - 2, (state) => void states.push(state.slice()));
      const half = total >> 1;
      for (const compression of ['default', 'fastest'] as const) {
        const options = { shape, cell: '4x6' as const, compression };
        const mode = compression === 'fastest' ? 'stored' : 'deflate';
        const threads = [
          await ceilingThread(wasmUrl, shared, o, mode),
          await ceilingThread(wasmUrl, shared, o, mode),
        ];
        const one = (keep = true): Promise<Uint8Array[]> =>
          Promise.all([threads[0]!.render({ from: 0, to: total, state: null, keep })]);
        const two = (keep = true): Promise<Uint8Array[]> =>
          Promise.all([
            threads[0]!.render({ from: 0, to: half, state: null, keep }),
            threads[1]!.render({ from: half, to: total, state: states[half]!, keep }),
          ]);
        const serial = await render(text, { ...options, engine: 'wasm' });
        const all = Buffer.concat(serial.pages.map((p) => p.png));
        const same =
          Buffer.compare(Buffer.concat((await pool.render(text, options)).pages.map((p) => p.png)), all) ===
            0 &&
          Buffer.compare(Buffer.concat((await caller.render(text, options)).pages.map((p) => p.png)), all) ===
            0 &&
          Buffer.compare(Buffer.concat(await one(false)), all) === 0 &&
          Buffer.compare(Buffer.concat(await two(false)), all) === 0;
        const baseline = base ? await base.render(text, options) : undefined;
        if (!same || (baseline && Buffer.compare(Buffer.concat(baseline.pages.map((p) => p.png)), all) !== 0))
          throw new Error(`pool (${compression}): bytes differ from render()`);
        type Name = 'serial' | 'pool' | 'caller' | 'one' | 'two' | 'base';
        const names: Name[] = [
          'serial',
          'pool',
          'caller',
          'one',
          'two',
          ...(base ? (['base'] as const) : []),
        ];
        const runs = Object.fromEntries(
          names.map((n) => [
            n,
            { wall: [] as number[], cpu: [] as number[], threads: new Map<string, number>() },
          ]),
        );
        const calls: Record<Name, () => Promise<unknown>> = {
          serial: () => render(text, { ...options, engine: 'wasm' }),
          pool: () => pool.render(text, options),
          caller: () => caller.render(text, options),
          one,
          two,
          base: () => base!.render(text, options),
        };
        // Rows of a Williams design: each call in every position, and after every other call as often
        // (a call pays part of the garbage its predecessor left: rotating one order made the call after
        // render() look up to 3 ms slower than the same pool one place later).
        const orders = balancedOrders(names.length);
        for (let i = 0; i < (ctx.quick ? 2 : Math.ceil(25 / orders.length) * orders.length); i++) {
          for (const j of orders[i % orders.length]!) {
            const name = names[j]!;
            const [t, c, before] = [performance.now(), cpuMs(), threadCpuMs()];
            await calls[name]();
            runs[name]!.wall.push(performance.now() - t);
            runs[name]!.cpu.push(cpuMs() - c);
            addThreadCpu(runs[name]!.threads, before, threadCpuMs());
          }
        }
        await Promise.all(threads.map((t) => t.close()));
        const wall = Object.fromEntries(names.map((n) => [n, median(runs[n]!.wall)])) as Record<Name, number>;
        const cpu = Object.fromEntries(names.map((n) => [n, median(runs[n]!.cpu)])) as Record<Name, number>;
        const measured = runs.serial!.wall.length;
        const byThread = Object.fromEntries(
          names.map((n) => [n, splitThreadCpu(runs[n]!.threads, measured)]),
        ) as Record<Name, ReturnType<typeof splitThreadCpu>>;
        const ceiling = wall.one / wall.two;
        if (base)
          ctx.log(
            `${compression}: base pool (${baseDir}) ${wall.base.toFixed(1)} ms (cpu ${cpu.base.toFixed(1)}), ` +
              `${(wall.serial / wall.base).toFixed(2)}×, ÷ ceiling ${(wall.serial / wall.base / ceiling).toFixed(2)}; ` +
              `by thread: calling ${byThread.base.calling.toFixed(1)}, workers ${byThread.base.workers.toFixed(1)}, ` +
              `other ${byThread.base.other.toFixed(1)} ms`,
          );
        ctx.log(
          `${compression}, ${serial.pages.length} pages: serial ${wall.serial.toFixed(1)} ms (cpu ${cpu.serial.toFixed(1)}); ` +
            `ceiling: one thread ${wall.one.toFixed(1)} ms, two halves ${wall.two.toFixed(1)} ms (cpu ${cpu.two.toFixed(1)}), ` +
            `${ceiling.toFixed(2)}×`,
        );
        for (const [name, label] of [
          ['pool', `${cores} workers`],
          ['caller', `${caller.size} worker${caller.size === 1 ? '' : 's'} + calling thread`],
        ] as const) {
          const speedup = wall.serial / wall[name];
          const threads = byThread[name];
          ctx.log(
            `  ${label}: ${wall[name].toFixed(1)} ms (cpu ${cpu[name].toFixed(1)}), ${speedup.toFixed(2)}×, ` +
              `÷ ceiling ${(speedup / ceiling).toFixed(2)}; CPU by thread: calling ${threads.calling.toFixed(1)}, ` +
              `workers ${threads.workers.toFixed(1)}, other ${threads.other.toFixed(1)} ms`,
          );
          rows.push({
            suite: 'pool',
            impl: `${label}, ${compression} (${from})`,
            pages: serial.pages.length,
            kbPerPage: round(serial.bytes / serial.pages.length / 1024, 1),
            serialMs: round(wall.serial, 1),
            poolMs: round(wall[name], 1),
            speedup: round(speedup, 2),
            speedupPerCore: round(speedup / cores, 2),
            // Two threads on two halves, nothing shared but the text, vs one thread on all the pages
            // (same core code, same bytes): what this machine allows this workload, measured.
            oneThreadMs: round(wall.one, 1),
            twoHalvesMs: round(wall.two, 1),
            ceiling: round(ceiling, 2),
            ofCeiling: round(speedup / ceiling, 2),
            serialCpuMs: round(cpu.serial, 1),
            poolCpuMs: round(cpu[name], 1),
            twoHalvesCpuMs: round(cpu.two, 1),
            oneThreadCpuMs: round(cpu.one, 1),
            // Mean CPU per call by thread (/proc, Linux): the calling thread, the threads doing the work
            // (the pool's workers; the ceiling's two threads), everything else (V8's GC and compiler
            // threads, libuv).
            poolCallingMs: round(threads.calling, 1),
            poolWorkersMs: round(threads.workers, 1),
            poolOtherMs: round(threads.other, 1),
            twoHalvesWorkersMs: round(byThread.two.workers, 1),
            twoHalvesOtherMs: round(byThread.two.calling + byThread.two.other, 1),
            serialCallingMs: round(byThread.serial.calling, 1),
            serialOtherMs: round(byThread.serial.other + byThread.serial.workers, 1),
            // CPU the pool spends per CPU of the serial path (workers' start-up excluded: warmed).
            cpuOverhead: round(cpu[name] / cpu.serial, 2),
            // The speed-up its CPU allows on idle cores: an upper bound, not a measurement.
            idleBound: round((cores * cpu.serial) / cpu[name], 2),
            startupMs: round(startupMs, 1),
            identical: same,
          });
        }
      }
    } finally {
      await pool.close();
      await caller.close();
      await base?.close();
    }
    const loadAfter = loadavg();
    const load = `${loadBefore[0]!.toFixed(1)} → ${loadAfter[0]!.toFixed(1)}`;
    // Loaded: before the suite started, other runnable work of more than half the cores (the bench's
    // own threads then count in the figure after it).
    const machine =
      loadBefore[0]! > cores / 2
        ? `loaded (load ${load} on ${cores} cores)`
        : `near idle (load ${load} on ${cores} cores)`;
    ctx.log(`pool: machine ${machine}`);
    for (const r of rows) {
      r.load1Before = round(loadBefore[0]!, 2);
      r.load1After = round(loadAfter[0]!, 2);
      r.machine = machine;
    }
    return rows;
  },
};

/** The child of `identity`: sha256 of the pages of a fixed text, on whatever runtime runs it. */
const IDENTITY_SCRIPT = (entry: string): string => `
import { render } from ${JSON.stringify(entry)};
const text = ${JSON.stringify(englishProse(120_000))};
const r = await render(text, { shape: { width: 1568, height: 784 }, cell: '4x6' });
const parts = r.pages.map((p) => p.png);
const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
let at = 0; for (const p of parts) { all.set(p, at); at += p.length; }
const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', all));
console.log([...digest].map((b) => b.toString(16).padStart(2, '0')).join(''));
`;

const identitySuite: BenchSuite = {
  name: 'identity',
  async run(ctx) {
    const r = await render(englishProse(120_000), { shape: { width: 1568, height: 784 }, cell: '4x6' });
    const h = createHash('sha256');
    for (const p of r.pages) h.update(p.png);
    const here = h.digest('hex');
    const bundle = new URL('../dist/bundle/render/index.js', import.meta.url);
    if (!existsSync(bundle)) {
      ctx.log('identity: dist/bundle/render/index.js missing; run `npm run build` first');
      return [{ suite: 'identity', impl: 'node', skipped: 'dist not built (npm run build)' }];
    }
    const entry = bundle.href;
    const script = IDENTITY_SCRIPT(entry);
    const rows: BenchResult[] = [
      { suite: 'identity', impl: `node ${process.version} (this process)`, sha256: here.slice(0, 16) },
    ];
    const runtimes: [string, string[]][] = [
      [process.execPath, ['--input-type=module', '-e', script]],
      ['bun', ['-e', script]],
      ['deno', ['eval', script]],
    ];
    for (const [cmd, args] of runtimes) {
      const child = spawnSync(cmd, args, { encoding: 'utf8' });
      const name = cmd === process.execPath ? `node ${process.version} (child process)` : cmd;
      if (child.error) {
        ctx.log(`identity: ${cmd} not installed`);
        rows.push({ suite: 'identity', impl: name, skipped: 'not installed' });
        continue;
      }
      if (child.status !== 0) throw new Error(`identity: ${cmd} failed: ${child.stderr}`);
      const sha = child.stdout.trim();
      rows.push({ suite: 'identity', impl: name, sha256: sha.slice(0, 16), identical: sha === here });
    }
    return rows;
  },
};

export const DEFLATE_SUITES: readonly BenchSuite[] = [bytesSuite, speedSuite, poolSuite, identitySuite];
