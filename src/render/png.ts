/**
 * PNG encoding of one page of scanlines (docs/renderer.md §5): 1-bit greyscale, one IDAT chunk, no
 * ancillary chunks, so the same scanlines and deflate path always give the same bytes. References are
 * to the PNG specification, W3C Recommendation / ISO/IEC 15948:2003 (second edition).
 *
 * The deflate of the scanlines is the real cost of a page, so there are three paths:
 * - `zlib`: Node's native zlib, fetched at run time with `process.getBuiltinModule('node:zlib')`
 *   (Node ≥ 20.16) instead of a static import, so this module still loads in edge runtimes;
 * - `stream`: the web `CompressionStream('deflate')` (edge runtimes, browsers; async, fixed level);
 * - `fflate`: pure JS, works everywhere, the portable fallback.
 * Each path is deterministic on its own; with 'default' different paths give different (equally valid)
 * bytes, with 'fastest' (stored blocks, see stored.ts) every path gives the same bytes.
 */
import { crc32 } from './crc32.js';
import { nativeZlib } from './native-zlib.js';
import { storedZlib, storedZlibLength } from './stored.js';

export { nativeZlib } from './native-zlib.js';

/**
 * 'default' compresses (Node zlib level 1 where present, fflate level 6 else); 'fastest' stores the
 * scanlines uncompressed in the zlib stream (level 0), the same bytes on every path.
 */
export type Compression = 'default' | 'fastest';
export type DeflatePath = 'zlib' | 'stream' | 'fflate';

/** The scanlines of one page and its size; `scanlines` is `height × (1 + ceil(width / 8))` bytes. */
export interface ScanlineImage {
  width: number;
  height: number;
  scanlines: Uint8Array;
}

/** fflate's level on the portable path (its level 1 compresses these pages much worse). */
const FFLATE_LEVEL = 6;
/**
 * Node zlib's 'default': level 1 (deflate_fast), default strategy, memLevel 9, 32 KiB window. The
 * pages repeat whole glyph rows (the same letters, words and blank rows) at distances up to a few KiB,
 * which level 1's hash matching finds; measured side by side on 1568×784 prose pages it is about as
 * fast as the earlier level 6 + Z_RLE (±10%) and 43% smaller (26 vs 45.5 KiB per page). Higher levels gain ~4% for
 * 10–80% more time; smaller windows or Z_RLE lose the long matches; PNG filter 2 (Up) makes pages
 * larger and slower to deflate (docs/render.md has the measurements).
 */
const ZLIB_DEFAULT = { level: 1, memLevel: 9, windowBits: 15 } as const;

type ZlibSync = (data: Uint8Array, options: { level: 6 }) => Uint8Array;
let fflateZlibSync: ZlibSync | undefined;

/**
 * Loads fflate, the pure-JS deflate of the `fflate` path. It is imported on first use only, so a
 * cold start on the `zlib` path (or with 'fastest') never parses it: {@link encodePng} calls this
 * itself; call it before {@link encodePngSync} with `path: 'fflate'` and 'default' compression.
 */
export async function loadFflate(): Promise<void> {
  fflateZlibSync ??= (await import('fflate')).zlibSync;
}

/** The deflate paths this runtime offers, fastest first. */
export function availableDeflatePaths(): DeflatePath[] {
  const paths: DeflatePath[] = [];
  if (nativeZlib()) paths.push('zlib');
  if (typeof CompressionStream === 'function') paths.push('stream');
  paths.push('fflate');
  return paths;
}

/**
 * The path `encodePng` uses when none is asked for: the first of {@link availableDeflatePaths}. It does
 * not build that list: in Node, touching the `CompressionStream` global loads the web-streams modules
 * (~4 ms of a cold start) even though zlib is taken first.
 */
export function defaultDeflatePath(): DeflatePath {
  if (nativeZlib()) return 'zlib';
  return typeof CompressionStream === 'function' ? 'stream' : 'fflate';
}

function zlibStreamSync(data: Uint8Array, compression: Compression, path: 'zlib' | 'fflate'): Uint8Array {
  if (path === 'zlib') {
    const zlib = nativeZlib();
    if (!zlib)
      throw new Error("deflate path 'zlib' is not available: process.getBuiltinModule('node:zlib') failed");
    // Level 0 with one output chunk large enough for the whole stream: zlib then writes maximal stored
    // blocks, exactly as storedZlib() does, with its SIMD Adler-32 (≈0.05 ms per 1568×784 page).
    const out =
      compression === 'fastest'
        ? zlib.deflateSync(data, { level: 0, chunkSize: Math.max(64 * 1024, storedZlibLength(data.length)) })
        : zlib.deflateSync(data, ZLIB_DEFAULT);
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  }
  if (compression === 'fastest') return storedZlib(data);
  if (!fflateZlibSync) {
    throw new Error(
      "deflate path 'fflate' is loaded on first use: await loadFflate() before encodePngSync, or use encodePng",
    );
  }
  return fflateZlibSync(data, { level: FFLATE_LEVEL });
}

async function zlibStreamAsync(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** PNG spec §5.2: the eight-byte signature. */
export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/**
 * PNG spec §5.3 chunk layout: length (4 bytes, big-endian, data only), type (4 ASCII bytes), data,
 * CRC-32 over type and data (§5.5). Writes at `at` and returns the offset after the chunk.
 */
function writeChunk(out: Uint8Array, view: DataView, at: number, type: string, data: Uint8Array): number {
  view.setUint32(at, data.length);
  for (let i = 0; i < 4; i++) out[at + 4 + i] = type.charCodeAt(i);
  out.set(data, at + 8);
  view.setUint32(at + 8 + data.length, crc32(out, at + 4, at + 8 + data.length));
  return at + 12 + data.length;
}

/**
 * PNG spec §11.2.2 IHDR: width, height, bit depth 1, colour type 0 (greyscale), compression method 0
 * (zlib deflate, §10), filter method 0 (adaptive, §9; every scanline here uses type 0 None), no
 * interlace (§8).
 */
function ihdr(width: number, height: number): Uint8Array {
  const data = new Uint8Array(13);
  const view = new DataView(data.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  data[8] = 1; // bit depth
  data[9] = 0; // colour type: greyscale
  data[10] = 0; // compression method
  data[11] = 0; // filter method
  data[12] = 0; // interlace method: none
  return data;
}

/** Signature + IHDR + one IDAT (§11.2.4) holding the whole zlib stream + IEND (§11.2.5, empty). */
export function assemblePng(width: number, height: number, zlibStream: Uint8Array): Uint8Array {
  const header = ihdr(width, height);
  const out = new Uint8Array(8 + 12 + header.length + 12 + zlibStream.length + 12);
  const view = new DataView(out.buffer);
  out.set(PNG_SIGNATURE, 0);
  let at = writeChunk(out, view, 8, 'IHDR', header);
  at = writeChunk(out, view, at, 'IDAT', zlibStream);
  writeChunk(out, view, at, 'IEND', new Uint8Array(0));
  return out;
}

function checkImage(image: ScanlineImage): void {
  const stride = 1 + Math.ceil(image.width / 8);
  if (image.scanlines.length !== image.height * stride) {
    throw new RangeError(
      `scanlines of a ${image.width}x${image.height} page: expected ${image.height * stride} bytes ` +
        `(${image.height} × ${stride}), found ${image.scanlines.length}`,
    );
  }
}

export interface EncodeOptions {
  compression?: Compression;
  /** Deflate path; defaults to {@link defaultDeflatePath}. */
  path?: DeflatePath;
}

/** Encodes one page synchronously with the `zlib` or `fflate` path (`stream` is async-only). */
export function encodePngSync(image: ScanlineImage, options: EncodeOptions = {}): Uint8Array {
  checkImage(image);
  let path = options.path ?? defaultDeflatePath();
  const compression = options.compression ?? 'default';
  if (path === 'stream') {
    if (options.path && compression !== 'fastest') {
      throw new RangeError("deflate path 'stream' is asynchronous: use encodePng");
    }
    path = 'fflate';
  }
  const stream = zlibStreamSync(image.scanlines, compression, path);
  return assemblePng(image.width, image.height, stream);
}

/**
 * Encodes one page with any path. 'fastest' needs no deflate at all, so it never takes the async
 * `stream` path; 'default' on `stream` uses the web API's own (fixed) level.
 */
export async function encodePng(image: ScanlineImage, options: EncodeOptions = {}): Promise<Uint8Array> {
  const path = options.path ?? defaultDeflatePath();
  if (path === 'fflate' && options.compression !== 'fastest') await loadFflate();
  if (path !== 'stream' || options.compression === 'fastest') {
    return encodePngSync(image, { ...options, path: path === 'stream' ? 'fflate' : path });
  }
  checkImage(image);
  if (typeof CompressionStream !== 'function') {
    throw new Error("deflate path 'stream' is not available: this runtime has no CompressionStream");
  }
  return assemblePng(image.width, image.height, await zlibStreamAsync(image.scanlines));
}
