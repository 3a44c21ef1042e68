/**
 * A tiny PNG encoder for fixtures and the bundled example (scripts only; Node zlib). Writes 8-bit RGB,
 * filter type 0 on every row (PNG spec §9.2), one IDAT chunk, CRC per §5.5.
 */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Encodes `width × height` RGB pixels given by `pixel(x, y) → [r, g, b]`. */
export function encodePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number],
): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const [r, g, b] = pixel(x, y);
      raw[row + 1 + x * 3] = r;
      raw[row + 2 + x * 3] = g;
      raw[row + 3 + x * 3] = b;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: truecolour
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/** A flat "screenshot": title bar, a few text-like bars, one highlighted row. Deterministic. */
export function screenshotPng(width: number, height: number, seed: number): Buffer {
  return encodePng(width, height, (x, y) => {
    if (y < 8) return [52, 58, 70];
    if (x < 2 || x >= width - 2 || y >= height - 2) return [200, 200, 205];
    const line = Math.floor((y - 10) / 6);
    const inBar = (y - 10) % 6 < 3 && x > 6 && x < 6 + ((line * 37 + seed * 13) % (width - 20)) + 8;
    if (line === 3 + (seed % 4)) return inBar ? [160, 30, 30] : [255, 236, 236];
    return inBar ? [90, 90, 96] : [250, 250, 250];
  });
}

/** Deterministic pseudo-random numbers (mulberry32) so generated files are byte-stable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const HEX = '0123456789abcdef';

/** Random-looking base64 of `n` characters (signatures, encrypted reasoning). */
export function fakeBase64(next: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += B64[Math.floor(next() * 64)];
  return s;
}

/** A v4-shaped uuid from the generator. */
export function fakeUuid(next: () => number): string {
  let h = '';
  for (let i = 0; i < 32; i++) h += HEX[Math.floor(next() * 16)];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[Math.floor(next() * 4)]}${h.slice(17, 20)}-${h.slice(20)}`;
}

/** An id in the style of Anthropic ids (`toolu_…`, `msg_…`, `req_…`). */
export function fakeId(next: () => number, prefix: string, n = 24): string {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < n; i++) s += A[Math.floor(next() * A.length)];
  return `${prefix}${s}`;
}
