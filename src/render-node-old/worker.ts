/** A thread of the render pool (pool.ts): instantiates the posted WASM module and encodes page slices. */
import { parentPort, workerData } from 'node:worker_threads';
import { loadWasmCoreFrom, type WasmCore, type WasmPageOptions } from '../render/wasm.js';

/** One slice of a text's pages, [from, to). */
export interface PoolJob {
  id: number;
  text: string;
  options: WasmPageOptions;
  mode: 'deflate' | 'stored';
  from: number;
  to: number;
}

/** The slice's pages in order, or the error and the 0-based page it happened on. */
export interface PoolReply {
  id: number;
  pages?: { png: Uint8Array; chars: number; escapes: number }[];
  error?: string;
  page?: number;
}

const port = parentPort;
if (port) {
  let core: WasmCore | undefined;
  port.on('message', (job: PoolJob) => {
    void (async () => {
      let page = job.from;
      try {
        core ??= await loadWasmCoreFrom((workerData as { module: object }).module);
        const pages: NonNullable<PoolReply['pages']> = [];
        for (const p of core.pages(job.text, job.options, job.from)) {
          if (page >= job.to) break;
          pages.push({ png: p.png(job.mode), chars: p.chars, escapes: p.escapes });
          page++;
        }
        const reply: PoolReply = { id: job.id, pages };
        port.postMessage(
          reply,
          pages.map((p) => p.png.buffer as ArrayBuffer),
        );
      } catch (err) {
        const reply: PoolReply = { id: job.id, error: (err as Error).message ?? String(err), page };
        port.postMessage(reply);
      }
    })();
  });
}
