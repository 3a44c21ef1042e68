/**
 * A thread of the render pool (pool.ts): instantiates the posted WASM module once, then renders the
 * chunks of each posted text it takes from the text's shared counter, going forward in one run.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  loadWasmCoreFrom,
  type Utf8Text,
  type WasmCore,
  type WasmPageOptions,
  type WasmRun,
} from '../render/wasm.js';

/**
 * One text to render. Its pages are cut into chunks (`bounds`: chunk k is pages [bounds[k],
 * bounds[k+1])); every worker the text is posted to takes the next chunk from `next[0]` (an atomic
 * counter over a SharedArrayBuffer) until none is left, so a worker that runs faster takes more.
 */
export interface PoolJob {
  kind: 'render';
  id: number;
  /** UTF-8 over a SharedArrayBuffer (one copy for all workers), or the string if it has lone surrogates. */
  text: string | Utf8Text;
  options: WasmPageOptions;
  mode: 'deflate' | 'stored';
  bounds: Int32Array;
  next: Int32Array;
}

/** Asks a worker to instantiate its core now (`RenderPool.warm()`). */
export interface PoolWarm {
  kind: 'warm';
}

/** What a worker posts back. */
export type PoolReply =
  /**
   * Chunk `chunk` of render `id`: its pages' PNGs one after another in `png` (one transferred buffer:
   * transferring a buffer per page cost more than the copy, measured), with each page's length,
   * characters and escapes in `meta` (3 numbers a page).
   */
  | { kind: 'chunk'; id: number; chunk: number; png: Uint8Array; meta: Int32Array }
  /** No chunk of render `id` is left for this worker. */
  | { kind: 'done'; id: number }
  /** Render `id` failed on 0-based `page`. */
  | { kind: 'error'; id: number; error: string; page: number }
  | { kind: 'ready' };

/**
 * Which chunk this worker is rendering ([render id, chunk], -1 when none), over a SharedArrayBuffer
 * the pool reads if the worker dies, to name the pages it held.
 */
export type HeldSlot = Int32Array;

const port = parentPort;
if (port) {
  const { module, held } = workerData as { module: object; held: HeldSlot };
  let core: WasmCore | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const ready = async (): Promise<WasmCore> => (core ??= await loadWasmCoreFrom(module));
  port.on('message', (message: PoolJob | PoolWarm) => {
    // One message at a time, in order: a render runs synchronously once the core is there.
    chain = chain.then(async () => {
      if (message.kind === 'warm') {
        await ready();
        port.postMessage({ kind: 'ready' } satisfies PoolReply);
      } else renderJob(await ready(), message);
    });
  });

  const renderJob = (c: WasmCore, job: PoolJob): void => {
    const chunks = job.bounds.length - 1;
    let run: WasmRun | undefined;
    let pages: Iterator<{ png(mode: 'deflate' | 'stored'): Uint8Array; chars: number; escapes: number }>;
    let at = 0; // the next page `pages` yields
    let page = 0;
    try {
      for (let k = Atomics.add(job.next, 0, 1); k < chunks; k = Atomics.add(job.next, 0, 1)) {
        const from = job.bounds[k]!;
        const to = job.bounds[k + 1]!;
        held[0] = job.id;
        held[1] = k;
        page = from;
        if (run === undefined) {
          run = c.pages(job.text, job.options, from);
          pages = run[Symbol.iterator]();
        } else run.skip(from - at);
        const meta = new Int32Array(3 * (to - from));
        const pngs: Uint8Array[] = [];
        let bytes = 0;
        for (let i = 0; page < to; page++, i += 3) {
          const step = pages!.next();
          if (step.done)
            throw new Error(`expected page ${page + 1} of ${job.bounds[chunks]}, the text ended`);
          const p = step.value;
          const png = p.png(job.mode);
          pngs.push(png);
          bytes += png.length;
          meta[i] = png.length;
          meta[i + 1] = p.chars;
          meta[i + 2] = p.escapes;
        }
        const png = new Uint8Array(bytes);
        for (let i = 0, o = 0; i < pngs.length; o += pngs[i]!.length, i++) png.set(pngs[i]!, o);
        at = to;
        held[0] = -1;
        port.postMessage({ kind: 'chunk', id: job.id, chunk: k, png, meta } satisfies PoolReply, [
          png.buffer,
        ]);
      }
      port.postMessage({ kind: 'done', id: job.id } satisfies PoolReply);
    } catch (err) {
      held[0] = -1;
      const error = (err as Error).message ?? String(err);
      port.postMessage({ kind: 'error', id: job.id, error, page } satisfies PoolReply);
    }
  };
}
