/**
 * A thread of the render pool (pool.ts): instantiates the posted WASM module once, then does its share
 * of each posted text (share.ts), one message at a time.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { loadWasmCoreFrom, type WasmCore } from '../render/wasm.js';
import { renderShare, type HeldSlot, type PoolJob, type PoolReply, type PoolWarm } from './share.js';

const port = parentPort;
if (port) {
  // Replies go out on a port of their own (pool.ts takes them synchronously at times); jobs come in
  // on the parent port.
  const { module, held, replies } = workerData as { module: object; held: HeldSlot; replies: MessagePort };
  let core: WasmCore | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  const ready = async (): Promise<WasmCore> => (core ??= await loadWasmCoreFrom(module));
  const post = (reply: PoolReply, transfer: ArrayBuffer[] = []): void => replies.postMessage(reply, transfer);
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
