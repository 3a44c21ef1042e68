/**
 * `glyphfold/render/node`: pages rendered on worker threads (Node only; `glyphfold/render` stays
 * edge-safe and imports nothing from here). The WASM module is compiled once in this thread and
 * posted to every worker; a text's pages are split into one contiguous slice per worker, each worker
 * lays out the pages before its slice without drawing them (`WasmCore.pages(text, options, from)`)
 * and encodes its slice with the core. Pages come back in order and byte-identical to `render()` on
 * the WASM engine (docs/render.md, "Pages on worker threads").
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import {
  DEFAULT_MAX_PAGES,
  type Compression,
  type RenderedPage,
  type RenderOptions,
  type RenderResult,
} from '../render/index.js';
import { layoutGeometry } from '../render/reference.js';
import { loadWasmCore, wasmModule, type WasmCore } from '../render/wasm.js';
import type { PoolJob, PoolReply } from './worker.js';

/** render()'s options a pool takes: always the WASM engine and the core's own encoders. */
export type PoolRenderOptions = Omit<RenderOptions, 'engine' | 'deflate'>;

export interface RenderPoolOptions {
  /** Worker threads, default `os.availableParallelism()`. */
  size?: number;
  /** Node's per-worker heap limits (`worker_threads` ResourceLimits); a worker over them fails its pages. */
  resourceLimits?: ResourceLimits;
}

interface Pending {
  resolve(reply: PoolReply): void;
  reject(error: Error): void;
  from: number;
  to: number;
}

/** A fixed set of worker threads that render pages; `close()` ends them. */
export class RenderPool {
  /** Worker threads of this pool. */
  readonly size: number;
  private readonly limits: ResourceLimits | undefined;
  private readonly workers: Worker[] = [];
  private readonly idle: Worker[] = [];
  private readonly queue: ((worker: Worker) => void)[] = [];
  private readonly pending = new Map<Worker, Pending>();
  private counter: WasmCore | undefined;
  private closed = false;
  private nextId = 0;

  constructor(options: RenderPoolOptions = {}) {
    const size = options.size ?? availableParallelism();
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`render pool: size must be an integer ≥ 1, found ${String(size)}`);
    }
    this.size = size;
    this.limits = options.resourceLimits;
  }

  /**
   * Renders `text` like `render()` on the WASM engine, the pages split over the workers. Same
   * validation and errors as `render()`; an error inside a worker is rethrown naming its page.
   */
  async render(text: string, options: PoolRenderOptions): Promise<RenderResult> {
    if (this.closed) throw new Error('render pool: closed');
    if (typeof text !== 'string') {
      throw new TypeError(
        `render pool: expected text to be a string, found ${text === null ? 'null' : typeof text}`,
      );
    }
    if (typeof options !== 'object' || options === null) {
      throw new TypeError(`render pool: expected options { shape, cell?, … }, found ${String(options)}`);
    }
    const g = layoutGeometry(options);
    const compression: Compression = options.compression ?? 'default';
    if (compression !== 'default' && compression !== 'fastest') {
      throw new RangeError(`compression must be one of default, fastest, found ${String(compression)}`);
    }
    const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
    if (!(maxPages === Infinity || (Number.isInteger(maxPages) && maxPages >= 1)))
      throw new RangeError(`maxPages must be an integer ≥ 1 or Infinity, found ${String(maxPages)}`);
    const geometry = {
      width: g.width,
      height: g.height,
      cell: g.cell,
      scale: g.scale,
      spacing: g.spacing,
      layout: g.layout,
    };
    // Layout only (no drawing): how many pages, to cut them into slices.
    this.counter ??= await loadWasmCore();
    const { pages } = this.counter.count(text, geometry);
    if (pages > maxPages) {
      throw new RangeError(
        `render: the text needs more than ${maxPages} pages of ${g.width}x${g.height}; ` +
          `pass a larger maxPages (or Infinity) to lift the limit`,
      );
    }
    const slices = Math.min(this.size, pages);
    const jobs: Promise<PoolReply>[] = [];
    for (let k = 0; k < slices; k++) {
      const from = Math.floor((pages * k) / slices);
      const to = Math.floor((pages * (k + 1)) / slices);
      jobs.push(
        this.run({
          id: this.nextId++,
          text,
          options: geometry,
          mode: compression === 'fastest' ? 'stored' : 'deflate',
          from,
          to,
        }),
      );
    }
    const replies = await Promise.all(jobs);
    const result: RenderResult = { pages: [], chars: 0, escapes: 0, bytes: 0 };
    for (const reply of replies) {
      for (const p of reply.pages ?? []) {
        const page: RenderedPage = { width: g.width, height: g.height, chars: p.chars, png: p.png };
        result.pages.push(page);
        result.chars += p.chars;
        result.escapes += p.escapes;
        result.bytes += p.png.length;
        await options.onPage?.(page, result.pages.length - 1);
      }
    }
    return result;
  }

  /** Ends the worker threads; pending renders fail. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = this.workers.splice(0);
    this.idle.length = 0;
    await Promise.all(workers.map((w) => w.terminate()));
  }

  private async run(job: PoolJob): Promise<PoolReply> {
    const worker = await this.acquire();
    try {
      const reply = await new Promise<PoolReply>((resolve, reject) => {
        this.pending.set(worker, { resolve, reject, from: job.from, to: job.to });
        worker.ref(); // a busy worker keeps the process alive
        worker.postMessage(job);
      });
      if (reply.error !== undefined) {
        const where = reply.page === undefined ? '' : ` page ${reply.page + 1}:`;
        throw new Error(`render pool:${where} ${reply.error}`);
      }
      if (reply.pages?.length !== job.to - job.from) {
        throw new Error(
          `render pool: pages ${job.from + 1}–${job.to}: expected ${job.to - job.from} pages from the worker, found ${reply.pages?.length ?? 0}`,
        );
      }
      return reply;
    } finally {
      this.pending.delete(worker);
      this.release(worker);
    }
  }

  private async acquire(): Promise<Worker> {
    const idle = this.idle.pop();
    if (idle) return idle;
    if (this.workers.length < this.size) return this.spawn();
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private release(worker: Worker): void {
    if (this.closed || !this.workers.includes(worker)) return;
    const waiter = this.queue.shift();
    if (waiter) waiter(worker);
    else {
      this.idle.push(worker);
      worker.unref(); // an idle pool does not keep the process alive
    }
  }

  private async spawn(): Promise<Worker> {
    const module = await wasmModule();
    const worker = workerFrom(new URL(import.meta.url), module, this.limits);
    this.workers.push(worker);
    worker.on('message', (reply: PoolReply) => this.pending.get(worker)?.resolve(reply));
    const fail = (error: Error): void => {
      const i = this.workers.indexOf(worker);
      if (i >= 0) this.workers.splice(i, 1);
      const idle = this.idle.indexOf(worker);
      if (idle >= 0) this.idle.splice(idle, 1);
      const p = this.pending.get(worker);
      p?.reject(
        new Error(`render pool: worker failed on pages ${p.from + 1}–${p.to}: ${error.message}`, {
          cause: error,
        }),
      );
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
    return worker;
  }
}

/**
 * The worker thread. Built (dist/), worker.js runs as is. From the sources (tests, `node --import
 * tsx`) it is TypeScript, and module hooks do not reach worker threads on Node 20: a small
 * bootstrap registers tsx in the thread first.
 */
function workerFrom(here: URL, module: object, resourceLimits: ResourceLimits | undefined): Worker {
  const options = { workerData: { module }, ...(resourceLimits ? { resourceLimits } : {}) };
  if (!here.pathname.endsWith('.ts')) return new Worker(new URL('./worker.js', here), options);
  // The ESM build of tsx's API (require.resolve finds the CommonJS one, which fails in a worker).
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const entry = new URL('./worker.ts', here).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, ...options });
}

/** A pool of `size` worker threads (default: the available cores). */
export function createRenderPool(options: RenderPoolOptions = {}): RenderPool {
  return new RenderPool(options);
}
