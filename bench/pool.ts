/**
 * `pool`: ~200 pages, `render()` on one thread against the worker pool (one worker per core) and
 * against the pool whose calling thread renders too (`callerRenders`, one worker fewer), and the
 * ceiling: two threads rendering independent halves against one thread on all the pages.
 *
 * Each comparison runs in a child process of its own, its two calls alternated call by call (a b b a,
 * b a a b, …) so that a change of machine load hits both alike; the children take turns, three rounds
 * of each. Measured in one process, each variant paid part of the garbage and background GC the
 * others left (with a second pool in the process, the pool whose calling thread renders lost
 * 0.05–0.1× of its speed-up, measured), and a user's process holds one pool. Pools are warmed first
 * (their start-up is a row figure); wall-clock medians give the speed-up, process CPU (all threads)
 * per render gives the pool's overhead, and the load average before and after labels the run: on a
 * machine busy with other work the wall-clock ratio says little about idle cores.
 *
 * It measures the built package (dist/, as users run it; scripts/ensure-build.mjs rebuilds it before
 * `npm run bench`): from the sources each worker boots through tsx and runs slower than any user sees.
 * `GLYPHFOLD_BENCH_POOL=src` measures the sources instead (the tests' path).
 * `GLYPHFOLD_BENCH_POOL_BASE=<a dist/ directory>` (another build, e.g. main's) adds that build's pool
 * as one more comparison, for a before/after.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseVariant } from '../src/render/index.js';
import {
  loadWasmCore,
  wasmModule,
  type CoreDeflate,
  type Utf8Text,
  type WasmPageOptions,
} from '../src/render/wasm.js';
import { englishProse } from './corpus.js';
import type { BenchResult, BenchSuite } from './suite.js';

const round = (n: number, digits = 3): number => Number(n.toFixed(digits));
const SHAPE = { width: 1568, height: 784 };

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

/** What the pool suite compares, each in a child process: a pool against `render()`, or the ceiling. */
type Variant = 'pool' | 'caller' | 'ceiling' | 'base';

interface ChildJob {
  variant: Variant;
  compression: 'default' | 'fastest';
  from: 'src' | 'dist';
  baseDir?: string;
  /** Characters of prose (about 200 pages, measured once by the parent). */
  chars: number;
  /** Untimed calls of each arm first, then rounds of four timed calls (two of each). */
  warmup: number;
  rounds: number;
}

/** One call kind's figures in a child: wall and process CPU per call, CPU per call by thread. */
interface CallFigures {
  wall: number[];
  cpu: number[];
  threads: { calling: number; workers: number; other: number };
}

interface ChildResult {
  pages: number;
  bytes: number;
  startupMs: number;
  /** The variant's pages (both arms' pages for the ceiling) byte for byte those of `render()`. */
  identical: boolean;
  /** `serial` and the variant's pool, or `one` and `two` for the ceiling. */
  calls: Record<string, CallFigures>;
}

/** The child's side: one comparison, alternated call by call; prints its figures as JSON. */
async function runChild(job: ChildJob): Promise<ChildResult> {
  const root = new URL(job.from === 'src' ? '../src/' : '../dist/', import.meta.url);
  type RenderModule = typeof import('../src/render/index.js');
  type PoolModule = typeof import('../src/render-node/index.js');
  const { render } = (await import(new URL('render/index.js', root).href)) as RenderModule;
  const poolModule =
    job.variant === 'base'
      ? pathToFileURL(join(resolve(job.baseDir!), 'render-node/index.js')).href
      : new URL('render-node/index.js', root).href;
  const { createRenderPool } = (await import(poolModule)) as PoolModule;
  const text = englishProse(job.chars);
  const options = { shape: SHAPE, cell: '4x6' as const, compression: job.compression };
  const serial = await render(text, { ...options, engine: 'wasm' });
  const all = Buffer.concat(serial.pages.map((p) => p.png));
  const started = performance.now();
  const calls: Record<string, () => Promise<unknown>> = {};
  let close: () => Promise<unknown>;
  let identical: boolean;
  if (job.variant === 'ceiling') {
    // The ceiling's text, encoded once into shared memory (as the pool shares it), and the layout
    // state of the second half's first page.
    const o: WasmPageOptions = { ...SHAPE, ...parseVariant('4x6') };
    const utf8 = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text)));
    new TextEncoder().encodeInto(text, utf8);
    const shared: Utf8Text = { utf8 };
    const states: Int32Array[] = [];
    const core = await loadWasmCore();
    const total = core.pages(shared, o).layOut(2 ** 31 - 2, (state) => void states.push(state.slice()));
    const half = total >> 1;
    const wasmUrl = new URL('../dist/render/wasm.js', import.meta.url).href;
    const mode = job.compression === 'fastest' ? 'stored' : 'deflate';
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
    identical =
      Buffer.compare(Buffer.concat(await one(false)), all) === 0 &&
      Buffer.compare(Buffer.concat(await two(false)), all) === 0;
    calls.one = one;
    calls.two = two;
    close = () => Promise.all(threads.map((t) => t.close()));
  } else {
    const pool =
      job.variant === 'caller'
        ? createRenderPool({ callerRenders: true })
        : createRenderPool({ size: availableParallelism() });
    await pool.warm();
    const parallel = await pool.render(text, options);
    identical = Buffer.compare(Buffer.concat(parallel.pages.map((p) => p.png)), all) === 0;
    calls.serial = () => render(text, { ...options, engine: 'wasm' });
    calls[job.variant] = () => pool.render(text, options);
    close = () => pool.close();
  }
  const startupMs = performance.now() - started;
  const [a, b] = Object.keys(calls) as [string, string];
  const runs: Record<string, { wall: number[]; cpu: number[]; threads: Map<string, number> }> = {
    [a]: { wall: [], cpu: [], threads: new Map() },
    [b]: { wall: [], cpu: [], threads: new Map() },
  };
  try {
    // Untimed calls of both first: the first calls of a process run the workers' JS before V8 has
    // optimised it (17–29 ms against 13–16 for the pool's first call, measured), which is start-up,
    // not a render's cost.
    for (let i = 0; i < job.warmup; i++) for (const name of [a, b]) await calls[name]!();
    for (let round = 0; round < job.rounds; round++) {
      for (const name of round % 2 ? [a, b, b, a] : [b, a, a, b]) {
        // The clock starts after the CPU readings and stops before them: reading /proc for every
        // thread takes ~0.2 ms, which would add the same to every call and pull ratios towards 1.
        const [c, before] = [cpuMs(), threadCpuMs()];
        const t = performance.now();
        await calls[name]!();
        const wallMs = performance.now() - t;
        runs[name]!.cpu.push(cpuMs() - c);
        addThreadCpu(runs[name]!.threads, before, threadCpuMs());
        runs[name]!.wall.push(wallMs);
      }
    }
  } finally {
    await close();
  }
  const figures = (name: string): CallFigures => ({
    wall: runs[name]!.wall,
    cpu: runs[name]!.cpu,
    threads: splitThreadCpu(runs[name]!.threads, runs[name]!.wall.length),
  });
  return {
    pages: serial.pages.length,
    bytes: serial.bytes,
    startupMs,
    identical,
    calls: { [a]: figures(a), [b]: figures(b) },
  };
}

const poolSuite: BenchSuite = {
  name: 'pool',
  async run(ctx) {
    const from = process.env.GLYPHFOLD_BENCH_POOL === 'src' ? 'src' : 'dist';
    const baseDir = process.env.GLYPHFOLD_BENCH_POOL_BASE;
    const core = await loadWasmCore();
    const target = ctx.quick ? 20 : 200;
    const o = { ...SHAPE, cell: '4x6' as const };
    const sample = core.count(englishProse(200_000), o);
    let chars = Math.ceil((target * sample.chars) / sample.pages);
    // Once more with the measured pages, so the run has about `target` pages.
    chars = Math.ceil((chars * target) / core.count(englishProse(chars), o).pages);
    const cores = availableParallelism();
    const variants: Variant[] = ['pool', 'caller', 'ceiling', ...(baseDir ? (['base'] as const) : [])];
    const loadBefore = loadavg();
    const rows: BenchResult[] = [];
    for (const compression of ['default', 'fastest'] as const) {
      const results = new Map<Variant, ChildResult[]>(variants.map((v) => [v, []]));
      // Rounds of every comparison in turn (each first in one round), so that the load of a moment
      // falls on all of them.
      for (let r = 0; r < (ctx.quick ? 1 : 3); r++) {
        for (let k = 0; k < variants.length; k++) {
          const variant = variants[(r + k) % variants.length]!;
          const job: ChildJob = {
            variant,
            compression,
            from,
            chars,
            warmup: ctx.quick ? 1 : 4,
            rounds: ctx.quick ? 2 : 12,
          };
          if (baseDir) job.baseDir = baseDir;
          const child = spawnSync(
            process.execPath,
            ['--import', 'tsx', fileURLToPath(import.meta.url), JSON.stringify(job)],
            { encoding: 'utf8', maxBuffer: 1 << 26 },
          );
          if (child.status !== 0)
            throw new Error(`pool: the ${variant} child failed (${child.status}): ${child.stderr}`);
          const result = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ChildResult;
          if (!result.identical)
            throw new Error(`pool (${variant}, ${compression}): bytes differ from render()`);
          results.get(variant)!.push(result);
        }
      }
      /** A call kind's figures over every child of a variant: median wall and CPU, mean CPU by thread. */
      const over = (variant: Variant, name: string) => {
        const list = results.get(variant)!.map((r) => r.calls[name]!);
        const mean = (f: (t: CallFigures['threads']) => number): number =>
          list.reduce((s, c) => s + f(c.threads), 0) / list.length;
        return {
          wall: median(list.flatMap((c) => c.wall)),
          cpu: median(list.flatMap((c) => c.cpu)),
          calling: mean((t) => t.calling),
          workers: mean((t) => t.workers),
          other: mean((t) => t.other),
        };
      };
      const [one, two] = [over('ceiling', 'one'), over('ceiling', 'two')];
      const ceiling = one.wall / two.wall;
      const { pages, bytes } = results.get('pool')![0]!;
      ctx.log(
        `${compression}, ${pages} pages: ceiling: one thread ${one.wall.toFixed(1)} ms, two halves ` +
          `${two.wall.toFixed(1)} ms (cpu ${two.cpu.toFixed(1)}), ${ceiling.toFixed(2)}×`,
      );
      for (const variant of variants.filter((v) => v !== 'ceiling')) {
        const label =
          variant === 'caller'
            ? `${Math.max(1, cores - 1)} worker${cores === 2 ? '' : 's'} + calling thread`
            : variant === 'base'
              ? `${cores} workers of ${baseDir}`
              : `${cores} workers`;
        const [serial, pool] = [over(variant, 'serial'), over(variant, variant)];
        const speedup = serial.wall / pool.wall;
        const perChild = results
          .get(variant)!
          .map((r) => (median(r.calls.serial!.wall) / median(r.calls[variant]!.wall)).toFixed(2));
        ctx.log(
          `  ${label}: ${pool.wall.toFixed(1)} ms (cpu ${pool.cpu.toFixed(1)}) against serial ` +
            `${serial.wall.toFixed(1)} ms (cpu ${serial.cpu.toFixed(1)}), ${speedup.toFixed(2)}×, ` +
            `÷ ceiling ${(speedup / ceiling).toFixed(2)} (children ${perChild.join(', ')}); ` +
            `CPU by thread: calling ${pool.calling.toFixed(1)}, ` +
            `workers ${pool.workers.toFixed(1)}, other ${pool.other.toFixed(1)} ms`,
        );
        rows.push({
          suite: 'pool',
          impl: `${label}, ${compression} (${from})`,
          pages,
          kbPerPage: round(bytes / pages / 1024, 1),
          serialMs: round(serial.wall, 1),
          poolMs: round(pool.wall, 1),
          speedup: round(speedup, 2),
          speedupPerCore: round(speedup / cores, 2),
          // Two threads on two halves, nothing shared but the text, vs one thread on all the pages
          // (same core code, same bytes): what this machine allows this workload, measured.
          oneThreadMs: round(one.wall, 1),
          twoHalvesMs: round(two.wall, 1),
          ceiling: round(ceiling, 2),
          ofCeiling: round(speedup / ceiling, 2),
          serialCpuMs: round(serial.cpu, 1),
          poolCpuMs: round(pool.cpu, 1),
          twoHalvesCpuMs: round(two.cpu, 1),
          oneThreadCpuMs: round(one.cpu, 1),
          // Mean CPU per call by thread (/proc, Linux): the calling thread, the threads doing the work
          // (the pool's workers; the ceiling's two threads), everything else (V8's GC and compiler
          // threads, libuv).
          poolCallingMs: round(pool.calling, 1),
          poolWorkersMs: round(pool.workers, 1),
          poolOtherMs: round(pool.other, 1),
          twoHalvesWorkersMs: round(two.workers, 1),
          twoHalvesOtherMs: round(two.calling + two.other, 1),
          serialCallingMs: round(serial.calling, 1),
          serialOtherMs: round(serial.other + serial.workers, 1),
          // CPU the pool spends per CPU of the serial path (workers' start-up excluded: warmed).
          cpuOverhead: round(pool.cpu / serial.cpu, 2),
          // The speed-up its CPU allows on idle cores: an upper bound, not a measurement.
          idleBound: round((cores * serial.cpu) / pool.cpu, 2),
          startupMs: round(median(results.get(variant)!.map((r) => r.startupMs)), 1),
          children: results.get(variant)!.length,
          identical: true,
        });
      }
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

export const POOL_SUITES: readonly BenchSuite[] = [poolSuite];

// Run as a child of the suite: one comparison, its figures as JSON on the last line of stdout.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runChild(JSON.parse(process.argv[2]!) as ChildJob);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
