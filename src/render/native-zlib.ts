/**
 * Node's zlib, looked up at run time with `process.getBuiltinModule('node:zlib')` (Node ≥ 20.16)
 * instead of a static import, so the modules that use it still load in edge runtimes and bundlers
 * never see a `node:` import.
 */

/** The part of `node:zlib` the renderer uses. */
export interface ZlibLike {
  deflateSync(
    data: Uint8Array,
    options: { level: number; strategy?: number; chunkSize?: number; memLevel?: number; windowBits?: number },
  ): Uint8Array;
  inflateSync(data: Uint8Array, options?: { finishFlush?: number; maxOutputLength?: number }): Uint8Array;
}

let zlibCache: ZlibLike | null | undefined;

/** Node's zlib when the runtime offers `process.getBuiltinModule` (Node ≥ 20.16), else undefined. */
export function nativeZlib(): ZlibLike | undefined {
  if (zlibCache === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const mod = proc?.getBuiltinModule?.('node:zlib') as ZlibLike | undefined;
    zlibCache =
      mod && typeof mod.deflateSync === 'function' && typeof mod.inflateSync === 'function' ? mod : null;
  }
  return zlibCache ?? undefined;
}
