/**
 * A thread of the render pool (pool.ts): instantiates the posted WASM module once, then does its share
 * of each posted text (share.ts), one message at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadWasmCoreFrom, type WasmCore } from '../render/wasm.js';
import { renderShare, type HeldSlot, type PoolJob, type PoolReply, type PoolWarm } from './share.js';

const port = parentPort;
if (port) {
  const { module, held } = workerData as { module: object; held: HeldSlot };
  let core: WasmCore | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const ready = async (): Promise<WasmCore> => (core ??= await loadWasmCoreFrom(module));
  const post = (reply: PoolReply, transfer: ArrayBuffer[] = []): void => port.postMessage(reply, transfer);
  port.on('message', (message: PoolJob | PoolWarm) => {
    // One message at a time, in order: a render runs synchronously once the core is there.
    chain = chain.then(async () => {
      if (message.kind === 'warm') {
        await ready();
        post({ kind: 'ready' });
      } else renderShare(await ready(), message, held, post);
    });
  });
}
