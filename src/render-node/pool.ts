/**
 * `glyphfold/render/node`: pages rendered on worker threads (Node only; `glyphfold/render` stays
 * edge-safe and imports nothing from here). The WASM module is compiled once in this thread and
 * posted to every worker. A render is posted at once, then its text encoded to UTF-8 once, into a
 * SharedArrayBuffer all workers read (no clone of the string per worker; they wake while it is
 * encoded): one worker renders from page 0 while
 * another counts the pages (layout only; with `callerRenders`, the calling thread renders from page 0),
 * cuts them into chunks that shrink towards the end (guided
 * scheduling) and publishes each chunk's first-page layout state in a shared control block
 * (chunks.ts). Each worker takes the next chunk from a shared atomic counter, so a worker that gets
 * more CPU takes more chunks and none idles while another still holds a long tail, and starts it from
 * its state (`WasmRun.restore`) without laying out the pages before it. Pages come back as one
 * transferred buffer per chunk, all of a worker's chunks in one message with its `done` (each message
 * wakes this thread), or each chunk at once when `onPage` wants its pages in order as soon as the
 * chunks before them are in; byte-identical to `render()` on the WASM engine (docs/render.md, "Pages
 * on worker threads").
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import {
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  type MessagePort,
  type ResourceLimits,
} from 'node:worker_threads';
import {
  DEFAULT_MAX_PAGES,
  type Compression,
  type RenderedPage,
  type RenderOptions,
  type RenderResult,
} from '../render/index.js';
import { layoutGeometry } from '../render/reference.js';
import { loadWasmCoreFrom, wasmModule, type Utf8Text, type WasmCore } from '../render/wasm.js';
import {
  BOUNDS_AT,
  CHUNKS,
  CLAIM,
  controlBlock,
  COUNTING,
  PAGES,
  READY,
  STATUS,
  stop,
  TEXT_FAILED,
  textWritten,
} from './chunks.js';
import {
  renderShare,
  type HeldSlot,
  type PoolChunk,
  type PoolJob,
  type PoolReply,
  type PoolWarm,
} from './share.js';

export { chunkBounds } from './chunks.js';

/** render()'s options a pool takes: always the WASM engine and the core's own encoders. */
export type PoolRenderOptions = Omit<RenderOptions, 'engine' | 'deflate'>;

export interface RenderPoolOptions {
  /**
   * Worker threads, default `os.availableParallelism()` (with `callerRenders`, one fewer, at least
   * one).
   */
  size?: number;
  /**
   * The calling thread renders a share of each text too: it renders from page 0 while a worker counts
   * the pages, then takes chunks like a worker; its pages need no message.
   * `render()` then blocks the event loop while it does its share (about half the pages on 2 cores),
   * so this suits a CLI or a batch job, not a server that must stay responsive. Default false.
   */
  callerRenders?: boolean;
  /** Node's per-worker heap limits (`worker_threads` ResourceLimits); a worker over them fails its pages. */
  resourceLimits?: ResourceLimits;
}

/** One render in flight. */
interface Job {
  id: number;
  /** The control block its workers share (chunks.ts): the count, chunk bounds and states. */
  ctl: Int32Array;
  maxPages: number;
  /** Chunks received, by index; delivered (to the result and `onPage`) in order. */
  chunks: ({ png: Uint8Array; meta: Int32Array } | undefined)[];
  delivered: number;
  delivering: boolean;
  /** Workers it was posted to that have not said `done`. */
  workers: Set<Worker>;
  /** The worker that renders chunk 0 from page 0, and the one that counts the pages (none: the calling thread). */
  lead: Worker | undefined;
  counter: Worker | undefined;
  text: string | Utf8Text;
  width: number;
  height: number;
  onPage: PoolRenderOptions['onPage'];
  result: RenderResult;
  resolve(result: RenderResult): void;
  reject(error: Error): void;
  settled: boolean;
}

/** Chunks of a render, once its count is published (Infinity before). */
function chunksOf(job: Job): number {
  return Atomics.load(job.ctl, STATUS) === READY ? job.ctl[CHUNKS]! : Infinity;
}

interface Thread {
  held: HeldSlot;
  /** Where the worker's replies come (a port of its own, so that they can also be taken synchronously). */
  port: MessagePort;
  jobs: Set<Job>;
  /** warm() calls waiting for this worker's core. */
  ready: { resolve(): void; reject(error: Error): void }[];
  dead: boolean;
}

/** A fixed set of worker threads that render pages; `close()` ends them. */
export class RenderPool {
  /** Worker threads of this pool. */
  readonly size: number;
  /** Whether the calling thread renders a share of each text (`RenderPoolOptions.callerRenders`). */
  readonly callerRenders: boolean;
  private readonly limits: ResourceLimits | undefined;
  /** The calling thread's core, when it renders too. */
  private core: Promise<WasmCore> | undefined;
  private readonly workers = new Map<Worker, Thread>();
  /** The text buffer of a finished render, reused: a fresh one costs more to fault in than to fill. */
  private spare: SharedArrayBuffer | undefined;
  /** What the calling thread holds while it renders (share.ts writes it; errors name their page anyway). */
  private readonly callerHeld: HeldSlot = new Int32Array(2).fill(-1);
  private closed = false;
  private nextId = 0;

  constructor(options: RenderPoolOptions = {}) {
    this.callerRenders = options.callerRenders ?? false;
    const size = options.size ?? Math.max(1, availableParallelism() - (this.callerRenders ? 1 : 0));
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`render pool: size must be an integer ≥ 1, found ${String(size)}`);
    }
    this.size = size;
    this.limits = options.resourceLimits;
  }

  /**
   * Starts every worker thread and instantiates its core, so that the first render does not pay for
   * it (a server warms its pool at start; the bench reports this start-up apart from rendering).
   */
  async warm(): Promise<void> {
    if (this.closed) throw new Error('render pool: closed');
    await this.fill();
    await Promise.all(
      [...this.workers].map(
        ([worker, t]) =>
          new Promise<void>((resolve, reject) => {
            t.ready.push({ resolve, reject });
            worker.ref();
            worker.postMessage({ kind: 'warm' } satisfies PoolWarm);
          }),
      ),
    );
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
    // The text's buffer now, its bytes after the render is posted: the workers wake (a few tenths of a
    // ms) while this thread encodes (0.4–0.7 ms for 5 MB), and wait for it only if they are first.
    const buffer = (text as unknown as { isWellFormed(): boolean }).isWellFormed()
      ? this.take(Math.min(3 * text.length, 2 ** 31))
      : undefined;
    const shared = buffer === undefined ? text : { utf8: new Uint8Array(buffer) };
    await this.fill();
    const core = this.callerRenders ? await (this.core ??= wasmModule().then(loadWasmCoreFrom)) : undefined;
    return new Promise<RenderResult>((resolve, reject) => {
      // The least busy workers lead and count (this thread leads, when it renders too); every worker
      // gets every render, in the same order (a worker waiting for a count then never waits on one that
      // waits on it).
      const threads = [...this.workers].sort((a, b) => a[1].jobs.size - b[1].jobs.size);
      const [lead, counter] = core
        ? [undefined, threads[0]![0]]
        : [threads[0]![0], (threads[1] ?? threads[0]!)[0]];
      const threadCount = this.size + (core ? 1 : 0);
      const job: Job = {
        id: this.nextId++,
        ctl: controlBlock(threadCount),
        maxPages,
        chunks: [],
        delivered: 0,
        delivering: false,
        workers: new Set(),
        lead,
        counter,
        text: shared,
        width: g.width,
        height: g.height,
        onPage: options.onPage,
        result: { pages: [], chars: 0, escapes: 0, bytes: 0 },
        resolve,
        reject,
        settled: false,
      };
      const message = (role: PoolJob['role']): PoolJob => ({
        kind: 'render',
        id: job.id,
        text: shared,
        options: geometry,
        mode: compression === 'fastest' ? 'stored' : 'deflate',
        ctl: job.ctl,
        role,
        workers: threadCount,
        maxPages,
        notify: options.onPage !== undefined,
        spin: role === 'lead' || role === 'lead+count' || (role === 'count' && core !== undefined),
      });
      for (const [worker, t] of this.workers) {
        job.workers.add(worker);
        t.jobs.add(job);
        worker.ref(); // a busy worker keeps the process alive
        const role =
          worker === lead
            ? lead === counter
              ? 'lead+count'
              : 'lead'
            : worker === counter
              ? 'count'
              : 'help';
        worker.postMessage(message(role));
      }
      if (buffer !== undefined) {
        // Straight into the shared buffer, sized for the worst case (3 bytes per UTF-16 unit; the pages
        // beyond what is written are never touched): measuring the UTF-8 length first
        // (Buffer.byteLength) cost twice the encoding (0.6 vs 0.3 ms for 5 MB of prose).
        const { read, written } = encoder.encodeInto(text, new Uint8Array(buffer));
        if (read < text.length) {
          textWritten(job.ctl, TEXT_FAILED);
          this.fail(
            job,
            new RangeError(`text of more than ${buffer.byteLength} bytes is too large for the wasm core`),
          );
          return;
        }
        textWritten(job.ctl, written);
      }
      // This thread's share, now: it renders from page 0 while a worker counts, then takes chunks like
      // any worker (share.ts: it never waits on a worker but while one publishes the count); its chunks
      // come back without a message, all at its end (`notify` off: nothing can deliver them before
      // this returns).
      if (core) {
        renderShare(core, { ...message('lead'), notify: false }, this.callerHeld, (reply) => {
          if (reply.kind === 'chunk') this.received(job, reply);
          if (reply.kind === 'done') for (const c of reply.chunks) this.received(job, c);
          if (reply.kind !== 'ready') this.settle(job, reply);
        });
        this.drain(job);
      }
    });
  }

  /**
   * After the calling thread's share every chunk is taken, so the workers hold at most one each: take
   * their replies as they come, for up to DRAIN_MS, rather than sleep until the event loop delivers
   * them. A thread that slept woke 0.1–3.8 ms after a worker's post on this VM (measured: an idle
   * vCPU is slow to wake), which was a tenth of the render at worst.
   */
  private drain(job: Job): void {
    const until = performance.now() + DRAIN_MS;
    while (!job.settled && job.workers.size > 0 && performance.now() < until) {
      for (const worker of [...job.workers]) {
        const t = this.workers.get(worker);
        const m = t && receiveMessageOnPort(t.port);
        if (m) this.receive(worker, t, m.message as PoolReply);
      }
    }
  }

  /** A text buffer of at least `length` bytes: the one a finished render left, or a new one. */
  private take(length: number): SharedArrayBuffer {
    const spare = this.spare;
    if (spare !== undefined && spare.byteLength >= length) {
      this.spare = undefined;
      return spare;
    }
    return new SharedArrayBuffer(length);
  }

  /** Keeps a finished render's text buffer (the larger one, up to SPARE_MAX bytes) for the next. */
  private recycle(text: string | Utf8Text): void {
    if (typeof text === 'string') return;
    const buffer = text.utf8.buffer as SharedArrayBuffer;
    if (buffer.byteLength <= SPARE_MAX && buffer.byteLength > (this.spare?.byteLength ?? -1))
      this.spare = buffer;
  }

  /** Ends the worker threads; pending renders fail. */
  async close(): Promise<void> {
    this.closed = true;
    const workers = [...this.workers.keys()];
    // An idle worker is unref'd: ref it again, or the process may exit before terminate() settles.
    await Promise.all(workers.map((w) => (w.ref(), w.terminate())));
  }

  /** Starts workers up to `size` (again after one died). */
  private async fill(): Promise<void> {
    if (this.workers.size >= this.size) return;
    const module = await wasmModule();
    while (this.workers.size < this.size) this.spawn(module);
  }

  private spawn(module: object): void {
    const held: HeldSlot = new Int32Array(new SharedArrayBuffer(8)).fill(-1);
    const { port1: port, port2 } = new MessageChannel();
    const worker = workerFrom(new URL(import.meta.url), { module, held, replies: port2 }, this.limits);
    const t: Thread = { held, port, jobs: new Set(), ready: [], dead: false };
    this.workers.set(worker, t);
    worker.unref();
    // The worker keeps the process alive while it has work (ref/unref above and below); its port never.
    port.unref();
    port.on('message', (reply: PoolReply) => this.receive(worker, t, reply));
    const fail = (error: Error): void => {
      if (t.dead) return;
      // Replies it posted before it ended come first (its port and its exit are separate channels).
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port))
        this.receive(worker, t, m.message as PoolReply);
      t.dead = true;
      this.workers.delete(worker);
      const [heldId, heldChunk] = [held[0]!, held[1]!];
      for (const job of t.jobs) {
        job.workers.delete(worker);
        const fail = (what: string): void =>
          this.fail(job, new Error(`render pool: worker failed ${what}: ${error.message}`, { cause: error }));
        const chunks = chunksOf(job);
        const pages = (k: number): string => {
          if (k < chunks) return `on pages ${job.ctl[BOUNDS_AT + k]! + 1}–${job.ctl[BOUNDS_AT + k + 1]!}`;
          // The lead's first chunk before the count fixed its end: the pages it had taken.
          return `on pages 1–${Math.max(1, job.ctl[CLAIM]!)}`;
        };
        if (job.id === heldId) fail(heldChunk < 0 ? 'counting the pages' : pages(heldChunk));
        else if (worker === job.counter && Atomics.load(job.ctl, STATUS) === COUNTING)
          fail('before counting the pages');
        else if (worker === job.lead && job.delivered === 0 && job.chunks[0] === undefined) fail(pages(0));
        else if (job.workers.size === 0 && job.delivered < chunks)
          // No other worker left on this text: every page not yet in.
          fail(`on pages ${job.ctl[BOUNDS_AT + job.delivered]! + 1}–${job.ctl[PAGES]!}`);
      }
      t.jobs.clear();
      for (const r of t.ready.splice(0))
        r.reject(new Error(`render pool: worker failed: ${error.message}`, { cause: error }));
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
  }

  private receive(worker: Worker, t: Thread, reply: PoolReply): void {
    // Closing: a late `done` must not unref a worker that close() waits on to exit.
    if (this.closed) return;
    if (reply.kind === 'ready') {
      t.ready.shift()?.resolve();
      if (t.jobs.size === 0) worker.unref();
      return;
    }
    const job = [...t.jobs].find((j) => j.id === reply.id);
    if (!job) return;
    if (reply.kind === 'chunk') this.received(job, reply);
    if (reply.kind === 'done') for (const c of reply.chunks) this.received(job, c);
    if (reply.kind === 'done' || reply.kind === 'error') {
      t.jobs.delete(job);
      job.workers.delete(worker);
      if (job.workers.size === 0) this.recycle(job.text); // no worker reads it any more
      if (t.jobs.size === 0) worker.unref(); // an idle pool does not keep the process alive
    }
    this.settle(job, reply);
  }

  /** Acts on a thread's reply once its chunks are in: delivers them, or fails the render. */
  private settle(job: Job, reply: Exclude<PoolReply, { kind: 'ready' }>): void {
    if (reply.kind === 'counted') {
      this.fail(
        job,
        new RangeError(
          `render: the text needs more than ${job.maxPages} pages of ${job.width}x${job.height}; ` +
            `pass a larger maxPages (or Infinity) to lift the limit`,
        ),
      );
    } else if (reply.kind === 'error') {
      const where = reply.page < 0 ? 'counting the pages' : `page ${reply.page + 1}`;
      this.fail(job, new Error(`render pool: ${where}: ${reply.error}`));
    } else void this.deliver(job);
  }

  private received(job: Job, c: PoolChunk): void {
    if (c.chunk < chunksOf(job)) job.chunks[c.chunk] = { png: c.png, meta: c.meta };
  }

  /** Every worker said `done` and posts its chunks before that: a chunk still missing is a bug. */
  private checkStalled(job: Job): void {
    if (job.workers.size > 0 || job.delivering || job.delivered >= chunksOf(job)) return;
    if (job.chunks[job.delivered] !== undefined) return;
    this.fail(job, new Error(`render pool: chunk ${job.delivered} of render ${job.id} never came back`));
  }

  /** Hands the chunks that are in, in order, to the result and `onPage`; resolves after the last. */
  private async deliver(job: Job): Promise<void> {
    if (job.delivering) return;
    job.delivering = true;
    try {
      const r = job.result;
      for (
        let c = job.chunks[job.delivered];
        c !== undefined && !job.settled;
        c = job.chunks[job.delivered]
      ) {
        job.chunks[job.delivered] = undefined;
        job.delivered++;
        for (let i = 0, at = 0; i < c.meta.length; i += 3) {
          const [length, chars, escapes] = [c.meta[i]!, c.meta[i + 1]!, c.meta[i + 2]!];
          // A view into the chunk's buffer (offset-aware readers only, as for any Uint8Array).
          const png = c.png.subarray(at, (at += length));
          const page: RenderedPage = { width: job.width, height: job.height, chars, png };
          r.pages.push(page);
          r.chars += chars;
          r.escapes += escapes;
          r.bytes += length;
          if (job.onPage) await job.onPage(page, r.pages.length - 1);
        }
      }
    } catch (err) {
      this.fail(job, err as Error);
    } finally {
      job.delivering = false;
    }
    // A failed render's chunks are dropped: delivering again would find them and recurse without end.
    if (job.settled) {
      job.chunks.length = 0;
      return;
    }
    // `>=`: the lead may post an empty chunk 0 for a text of no pages before the count says so.
    if (job.delivered >= chunksOf(job)) {
      job.settled = true;
      job.resolve(job.result);
    } else if (job.chunks[job.delivered] !== undefined) void this.deliver(job);
    else this.checkStalled(job);
  }

  private fail(job: Job, error: Error): void {
    if (job.settled) return;
    job.settled = true;
    stop(job.ctl); // the workers take no more of its chunks, and none waits for its count
    job.reject(error);
  }
}

/**
 * The largest text buffer a pool keeps between renders: room for a text of 64 Mi UTF-16 units at 3
 * bytes each (only the bytes a render wrote are ever resident).
 */
const SPARE_MAX = 3 * 64 * 1024 * 1024;

const encoder = new TextEncoder();

/** How long the calling thread, its share done, takes the workers' replies itself (`drain`). */
const DRAIN_MS = 3;

/**
 * The worker thread. Built (dist/), worker.js runs as is. From the sources (tests, `node --import
 * tsx`) it is TypeScript, and module hooks do not reach worker threads on Node 20: a small
 * bootstrap registers tsx in the thread first.
 */
function workerFrom(
  here: URL,
  workerData: { module: object; held: HeldSlot; replies: MessagePort },
  resourceLimits: ResourceLimits | undefined,
): Worker {
  const options = {
    workerData,
    transferList: [workerData.replies],
    ...(resourceLimits ? { resourceLimits } : {}),
  };
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
