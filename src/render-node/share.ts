/**
 * A thread's share of a pool render (pool.ts): the lead renders the first chunk from page 0 at once,
 * the counter lays out every page (no drawing) and publishes the chunks with the layout state of each
 * one's first page, and then every thread takes the next chunk from the shared counter and starts it
 * from its state. Run by each worker thread (worker.ts) and, in a pool whose calling thread renders
 * too, by that thread.
 */
import {
  LAYOUT_STATE_INTS,
  type Utf8Text,
  type WasmCore,
  type WasmPage,
  type WasmPageOptions,
  type WasmRun,
} from '../render/wasm.js';
import {
  CHUNKS,
  chunkBounds,
  chunkRange,
  chunkState,
  CLAIM,
  COUNTING,
  LOCKED,
  NEXT,
  PAGES,
  publish,
  STATUS,
  stop,
  STOPPED,
  waitText,
} from './chunks.js';

/**
 * One text to render, posted to every worker of the pool in the same order (so that a worker waiting
 * for a count never waits on a worker that waits on it). `ctl` is the render's control block
 * (chunks.ts).
 */
export interface PoolJob {
  kind: 'render';
  id: number;
  /**
   * UTF-8 over a SharedArrayBuffer (one copy for all workers; its first `ctl[TEXT]` bytes, once the
   * calling thread has written them), or the string if it has lone surrogates.
   */
  text: string | Utf8Text;
  options: WasmPageOptions;
  mode: 'deflate' | 'stored';
  ctl: Int32Array;
  /** 'lead' renders chunk 0 from page 0 before the count is in; 'count' counts first. */
  role: 'lead' | 'count' | 'lead+count' | 'help';
  /** Threads the pages are split over (chunk sizes). */
  workers: number;
  maxPages: number;
  /**
   * Post each chunk as soon as it is rendered (`onPage` wants its pages early), rather than all of a
   * worker's chunks with its `done`: each message wakes the calling thread.
   */
  notify: boolean;
  /**
   * Spin (rather than sleep) for the text: the one worker whose start is on the render's critical
   * path does (the lead, or the counter when the calling thread leads); more spinning threads than
   * cores would slow the calling thread's encoding of the text.
   */
  spin: boolean;
}

/** Asks a worker to instantiate its core now (`RenderPool.warm()`). */
export interface PoolWarm {
  kind: 'warm';
}

/**
 * Chunk `chunk` of a render: its pages' PNGs one after another in `png` (one transferred buffer:
 * transferring a buffer per page cost more than the copy, measured), with each page's length,
 * characters and escapes in `meta` (3 numbers a page).
 */
export interface PoolChunk {
  chunk: number;
  png: Uint8Array;
  meta: Int32Array;
}

/** What a thread posts back (a worker through its port, the calling thread to the pool). */
export type PoolReply =
  /** Chunk `chunk` of render `id`, posted at once (`notify`). */
  | ({ kind: 'chunk'; id: number } & PoolChunk)
  /** The text of render `id` has `pages` pages, more than maxPages (the count stops at maxPages + 1). */
  | { kind: 'counted'; id: number; pages: number }
  /** No chunk of render `id` is left for this worker; `chunks`: those it has not posted yet. */
  | { kind: 'done'; id: number; chunks: PoolChunk[] }
  /** Render `id` failed on 0-based `page` (-1: while counting). */
  | { kind: 'error'; id: number; error: string; page: number }
  | { kind: 'ready' };

/** A buffer of `length` bytes whose contents are not cleared (the caller writes or clears them all). */
function uninitialized(length: number): Uint8Array {
  const b = Buffer.allocUnsafeSlow(length);
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/**
 * What this worker is doing ([render id, chunk], -1 when idle; chunk -1 while it counts), over a
 * SharedArrayBuffer the pool reads if the worker dies, to name the pages it held.
 */
export type HeldSlot = Int32Array;

/** Where a thread's replies go, with the buffers to transfer. */
export type Post = (reply: PoolReply, transfer?: ArrayBuffer[]) => void;

/**
 * Does this thread's share of `job` on core `c`: its chunks, with `held` naming the pages in hand,
 * and its replies through `post` (the message port of a worker; the pool itself for the calling
 * thread).
 */
export function renderShare(c: WasmCore, job: PoolJob, held: HeldSlot, post: Post): void {
  const { ctl } = job;
  let run: WasmRun | undefined;
  let pages: Iterator<WasmPage> | undefined;
  let at = -1; // the page `pages` yields next
  let page = -1;
  /** This thread's pages of this render so far: how many, their bytes, whether all of one length. */
  const seen = { pages: 0, bytes: 0, same: true };
  /** Renders pages [from, to) (to: a function, for the lead's chunk whose end is not fixed yet). */
  const chunk = (
    k: number,
    from: number,
    more: (page: number) => boolean,
    pagesLeft: (page: number) => number,
  ): void => {
    held[0] = job.id;
    held[1] = k;
    if (run === undefined) {
      run = c.pages(textOf(job), job.options);
      pages = run[Symbol.iterator]();
      at = 0;
    }
    if (at !== from) {
      run.restore(chunkState(ctl, k), from);
      pages = run[Symbol.iterator]();
      at = from;
    }
    // The pages' PNGs straight from WASM memory into one buffer (one copy, not a copy per page and
    // another to join them), sized from this worker's pages of this render so far: exactly when
    // they all had one length (stored pages), else with a tenth to spare. Growing (a copy) or
    // handing back a buffer with much room left (another) cost a worker 0.9 + 0.7 ms per 200-page
    // render with the earlier guess (from a chunk's first page, doubling), 2.4 + 3.4 ms for stored
    // pages (measured). Not zeroed: a zeroed (calloc) buffer of a few MB is fresh memory the kernel
    // faults in page by page, 2.1 ms for 2.8 MB against 0.3 ms for a malloc'd one (measured); every
    // byte handed out is written, and the tail is cleared.
    let out: Uint8Array = new Uint8Array(0);
    let bytes = 0;
    const meta: number[] = [];
    for (page = from; more(page); page++) {
      const step = pages!.next();
      if (step.done) break;
      at = page + 1;
      const p = step.value;
      const png = p.pngView(job.mode);
      seen.same &&= seen.pages === 0 || png.length === seen.bytes / seen.pages;
      seen.pages++;
      seen.bytes += png.length;
      if (bytes + png.length > out.length) {
        const perPage = (seen.bytes / seen.pages) * (seen.same ? 1 : 1.1);
        const grown = uninitialized(bytes + png.length + Math.ceil(perPage * pagesLeft(page)));
        grown.set(out.subarray(0, bytes));
        out = grown;
      }
      out.set(png, bytes);
      bytes += png.length;
      meta.push(png.length, p.chars, p.escapes);
    }
    // Much room left (a guess too high): give back the exact bytes; else clear the tail, so that the
    // buffer holds nothing of earlier renders.
    const png = bytes < 0.75 * out.length ? out.slice(0, bytes) : out.fill(0, bytes).subarray(0, bytes);
    held[0] = -1;
    const done: PoolChunk = { chunk: k, png, meta: Int32Array.from(meta) };
    if (job.notify)
      post({ kind: 'chunk', id: job.id, ...done } satisfies PoolReply, [png.buffer as ArrayBuffer]);
    else unposted.push(done);
  };
  /** This worker's chunks of this render not posted yet (all of them, unless `notify`). */
  const unposted: PoolChunk[] = [];
  try {
    if (job.role === 'count' || job.role === 'lead+count') {
      // The counting run's text stays in memory for its chunks: they start from their states.
      run = count(c, job, held, post);
      at = -1;
    }
    if (job.role === 'lead') {
      // Page 0 on: each page claimed before it is drawn, until the counter locks the claims and fixes
      // the first chunk to hold at least the pages claimed. The lead waits on the counter only while
      // the counter publishes (it has locked the claims): where the text ends, or runs past maxPages,
      // before the count is in, the lead publishes or stops the render itself, so a calling thread
      // that leads never waits on a worker that is late, busy or gone.
      let end = -1;
      let over = false;
      chunk(
        0,
        0,
        (p) => {
          if (end < 0) {
            if (Atomics.load(ctl, NEXT) < 2 ** 30) {
              if (p < job.maxPages) {
                if (Atomics.compareExchange(ctl, CLAIM, p, p + 1) === p) return true;
              } else if (p > job.maxPages) {
                over = true; // page maxPages + 1 was there
                return false;
              } else if (Atomics.load(ctl, CLAIM) === p) return true; // drawn to learn if it is there
            }
            end = waitReady(ctl) ? chunkRange(ctl, 0)[1] : 0;
          }
          return p < end && Atomics.load(ctl, NEXT) < 2 ** 30;
        },
        // Before the count is in, room for a few pages more than so far.
        (p) => (end < 0 ? Math.max(7, p) : end - p - 1),
      );
      const claimed = Atomics.load(ctl, CLAIM);
      if (end >= 0 || claimed === LOCKED || Atomics.load(ctl, NEXT) >= 2 ** 30) {
        // The count came in (or the render stopped) while the lead drew its pages.
      } else if (over) {
        stop(ctl);
        post({ kind: 'counted', id: job.id, pages: job.maxPages + 1 });
      } else if (Atomics.compareExchange(ctl, CLAIM, claimed, LOCKED) === claimed) {
        // The text ended before the count: all its pages are the lead's first chunk.
        publish(ctl, at, chunkBounds(at, 1, at));
      }
    } else if (job.role === 'lead+count' && Atomics.load(ctl, STATUS) !== STOPPED) {
      const [from, to] = chunkRange(ctl, 0);
      chunk(
        0,
        from,
        (p) => p < to,
        (p) => to - p - 1,
      );
    }
    if (waitReady(ctl)) {
      const chunks = ctl[CHUNKS]!;
      for (let k = Atomics.add(ctl, NEXT, 1); k < chunks; k = Atomics.add(ctl, NEXT, 1)) {
        const [from, to] = chunkRange(ctl, k);
        chunk(
          k,
          from,
          (p) => p < to,
          (p) => to - p - 1,
        );
        if (at !== to) throw new Error(`expected page ${to} of ${ctl[PAGES]}, the text ended`);
      }
    }
    // One message for all of them: each message wakes the calling thread (~60 µs of its CPU, measured).
    post(
      { kind: 'done', id: job.id, chunks: unposted } satisfies PoolReply,
      unposted.map((c) => c.png.buffer as ArrayBuffer),
    );
  } catch (err) {
    held[0] = -1;
    stop(ctl);
    const error = (err as Error).message ?? String(err);
    post({ kind: 'error', id: job.id, error, page } satisfies PoolReply);
  }
}

/** Lays out every page (up to maxPages + 1) and publishes the chunks and their first pages' states. */
function count(c: WasmCore, job: PoolJob, held: HeldSlot, post: Post): WasmRun {
  const { ctl } = job;
  held[0] = job.id;
  held[1] = -1;
  const run = c.pages(textOf(job), job.options);
  let states = new Int32Array(64 * LAYOUT_STATE_INTS);
  const limit = job.maxPages === Infinity ? 2 ** 31 - 2 : job.maxPages + 1;
  const pages = run.layOut(limit, (state, p) => {
    if ((p + 1) * LAYOUT_STATE_INTS > states.length) {
      const grown = new Int32Array(states.length * 2);
      grown.set(states);
      states = grown;
    }
    states.set(state, p * LAYOUT_STATE_INTS);
  });
  held[0] = -1;
  if (pages > job.maxPages) {
    stop(ctl);
    post({ kind: 'counted', id: job.id, pages } satisfies PoolReply);
    return run;
  }
  const claimed = job.role === 'count' ? Atomics.exchange(ctl, CLAIM, LOCKED) : 0;
  // The lead locked the claims first: the text ended within its pages, and it published them.
  if (claimed === LOCKED) return run;
  const bounds = chunkBounds(pages, job.workers, Math.min(claimed, pages));
  for (let k = 0; k < bounds.length - 1; k++) {
    const from = bounds[k]! * LAYOUT_STATE_INTS;
    chunkState(ctl, k).set(states.subarray(from, from + LAYOUT_STATE_INTS));
  }
  // No message: the calling thread needs the count only with the chunks (one wake less).
  publish(ctl, pages, bounds);
  return run;
}

/** The render's text: the string, or its UTF-8 bytes once the calling thread has written them. */
function textOf(job: PoolJob): string | Utf8Text {
  if (typeof job.text === 'string') return job.text;
  // Spinning (up to 2 ms) rather than sleeping: a thread woken by Atomics.notify started 0.1–4 ms
  // later on this VM (measured).
  const bytes = waitText(job.ctl, job.spin ? 2 : 0);
  if (bytes < 0) throw new Error('the text was not written');
  return { utf8: job.text.utf8.subarray(0, bytes) };
}

/** Waits for the count; false if the render stopped instead. */
function waitReady(ctl: Int32Array): boolean {
  while (Atomics.load(ctl, STATUS) === COUNTING) Atomics.wait(ctl, STATUS, COUNTING);
  return Atomics.load(ctl, STATUS) !== STOPPED;
}
