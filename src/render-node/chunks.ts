/**
 * How the pool cuts a text's pages into chunks, and the shared control block (a SharedArrayBuffer)
 * through which its workers coordinate one render (pool.ts, worker.ts).
 */
import { LAYOUT_STATE_INTS } from '../render/wasm.js';

/**
 * Chunk boundaries for `pages` over `workers` threads: each chunk a share of what is left (large
 * first, so few messages; small last, so the workers finish together), at least one page. The first
 * chunk holds at least `first` pages: the pages its worker rendered before the count was known.
 */
export function chunkBounds(pages: number, workers: number, first = 0): Int32Array {
  const bounds = [0];
  for (let at = 0; at < pages;) {
    const share = Math.max(1, Math.ceil((pages - at) / (2 * workers)));
    at = Math.min(pages, Math.max(at + share, bounds.length === 1 ? first : 0));
    bounds.push(at);
  }
  return Int32Array.from(bounds);
}

/**
 * Most chunks chunkBounds() makes for `workers` and up to 2^31 pages: each chunk but the last
 * `2·workers` takes at least 1/(2·workers) of what is left.
 */
export function maxChunks(workers: number): number {
  return Math.ceil(2 * workers * Math.log(2 ** 31)) + 2 * workers + 2;
}

// The control block of one render: Int32 slots, then the chunk bounds, then the layout state of each
// chunk's first page.
/** Pages the lead worker took before the bounds were fixed; LOCKED once they are. */
export const CLAIM = 0;
/** COUNTING, READY (bounds and states written) or STOPPED (too many pages, or the render failed). */
export const STATUS = 1;
/** The next chunk to take (chunk 0 is the lead worker's). */
export const NEXT = 2;
/** Chunks and pages of the text (READY only). */
export const CHUNKS = 3;
export const PAGES = 4;
/**
 * Bytes of UTF-8 text in the render's shared text buffer, TEXT_PENDING until the calling thread has
 * written them (it posts the render first, so that the workers wake while it encodes), TEXT_FAILED
 * if it could not.
 */
export const TEXT = 5;
export const TEXT_PENDING = -1;
export const TEXT_FAILED = -2;
export const BOUNDS_AT = 6;
const BOUNDS = BOUNDS_AT;
export const LOCKED = -1;
export const COUNTING = 0;
export const READY = 1;
export const STOPPED = 2;

/** A fresh control block for a render split over `workers` threads (chunk 1 is the first to take). */
export function controlBlock(workers: number): Int32Array {
  const chunks = maxChunks(workers);
  const ctl = new Int32Array(new SharedArrayBuffer(4 * (BOUNDS + chunks + 1 + chunks * LAYOUT_STATE_INTS)));
  ctl[NEXT] = 1;
  ctl[TEXT] = TEXT_PENDING;
  return ctl;
}

/** Chunk k's first and end page (READY only). */
export function chunkRange(ctl: Int32Array, k: number): [number, number] {
  return [ctl[BOUNDS + k]!, ctl[BOUNDS + k + 1]!];
}

/** Chunk k's first page's layout state (READY only; none for chunk 0, which starts the text). */
export function chunkState(ctl: Int32Array, k: number): Int32Array {
  const at = BOUNDS + maxChunksOf(ctl) + 1 + k * LAYOUT_STATE_INTS;
  return ctl.subarray(at, at + LAYOUT_STATE_INTS);
}

/** Says the text is in its buffer: `bytes` long, or TEXT_FAILED. */
export function textWritten(ctl: Int32Array, bytes: number): void {
  Atomics.store(ctl, TEXT, bytes);
  Atomics.notify(ctl, TEXT);
}

/**
 * Waits until the calling thread has written the text; its length in bytes, or TEXT_FAILED. Spins for
 * up to `spinMs` first (the lead worker, whose first page is on the critical path): a thread woken by
 * Atomics.notify on this VM started 0.1–0.3 ms later (measured), about half the encoding itself.
 */
export function waitText(ctl: Int32Array, spinMs = 0): number {
  if (Atomics.load(ctl, TEXT) !== TEXT_PENDING) return Atomics.load(ctl, TEXT);
  const until = performance.now() + spinMs;
  for (let i = 1; Atomics.load(ctl, TEXT) === TEXT_PENDING; i++)
    if (i % 1024 === 0 && performance.now() > until) break;
  while (Atomics.load(ctl, TEXT) === TEXT_PENDING) Atomics.wait(ctl, TEXT, TEXT_PENDING);
  return Atomics.load(ctl, TEXT);
}

/** Writes the bounds (the states are written through chunkState) and the counts, then READY. */
export function publish(ctl: Int32Array, pages: number, bounds: Int32Array): void {
  if (bounds.length - 1 > maxChunksOf(ctl))
    throw new Error(`render pool: ${bounds.length - 1} chunks, more than the control block holds`);
  ctl.set(bounds, BOUNDS);
  ctl[CHUNKS] = bounds.length - 1;
  ctl[PAGES] = pages;
  Atomics.store(ctl, STATUS, READY);
  Atomics.notify(ctl, STATUS);
}

/** Stops a render: no worker takes another chunk of it, and none waits for its count. */
export function stop(ctl: Int32Array): void {
  Atomics.store(ctl, NEXT, 2 ** 30);
  Atomics.compareExchange(ctl, STATUS, COUNTING, STOPPED);
  Atomics.notify(ctl, STATUS);
}

function maxChunksOf(ctl: Int32Array): number {
  return (ctl.length - BOUNDS - 1) / (1 + LAYOUT_STATE_INTS);
}
