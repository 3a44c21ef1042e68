// The core's CRC-32 (slicing-by-16) and Adler-32 (SIMD column sums in chunks of 128 blocks) against
// zlib's, over page bytes written by the test: every length around their 16-byte steps and chunk
// edges, and the contents that stress them (all white pages reach the largest lane sums).
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadWasmCore, type WasmCore } from '../../src/render/wasm.js';

/** The Adler-32 of `data` from zlib: the last four bytes of its zlib stream (RFC 1950). */
function zlibAdler(data: Uint8Array): number {
  const z = deflateSync(data, { level: 1 });
  return z.readUInt32BE(z.length - 4);
}

/** Seeded xorshift32, so that a failure names a reproducible case. */
function rng(seed: number): () => number {
  let s = seed | 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

type Fill = (page: Uint8Array, next: () => number) => void;

const FILLS: Record<string, Fill> = {
  white: (p) => p.fill(0xff),
  black: (p) => p.fill(0),
  random: (p, next) => {
    for (let i = 0; i < p.length; i++) p[i] = next() & 0xff;
  },
  // Long runs of 0xff and 0x00 with short random stretches: the shape of a text page, and the
  // all-white blocks next to blocks with one byte of ink.
  runs: (p, next) => {
    for (let i = 0; i < p.length;) {
      const r = next();
      const len = 1 + (r % 300);
      const kind = (r >>> 9) % 4;
      for (let j = 0; j < len && i < p.length; j++, i++)
        p[i] = kind === 0 ? 0xff : kind === 1 ? 0 : kind === 2 ? next() & 0xff : 0xff ^ (1 << (next() & 7));
    }
  },
  // White with one byte of ink every 61 bytes: every position inside a 16-byte block.
  sparse: (p) => {
    p.fill(0xff);
    for (let i = 7; i < p.length; i += 61) p[i] = 0x7e;
  },
};

/** The IDAT chunk of a PNG: its CRC as stored, the bytes it covers (type and data), the zlib stream. */
function idat(png: Uint8Array): { crc: number; covered: Uint8Array; zlib: Buffer } {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const at = 33; // signature 8 + IHDR 25
  const length = view.getUint32(at);
  expect(Buffer.from(png.subarray(at + 4, at + 8)).toString('latin1')).toBe('IDAT');
  return {
    crc: view.getUint32(at + 8 + length),
    covered: png.subarray(at + 4, at + 8 + length),
    zlib: Buffer.from(png.buffer, png.byteOffset + at + 8, length),
  };
}

describe('checksums of the core-encoded PNG', () => {
  let core: WasmCore;
  beforeAll(async () => {
    core = await loadWasmCore();
  });

  /** Writes `fill` into a page of `width`×`height` (4x6 cells) and checks the stored PNG's sums. */
  function check(width: number, height: number, fill: string, seed: number): number {
    const run = core.pages('x', { width, height, cell: '4x6' });
    const page = [...run][0]!;
    FILLS[fill]!(page.scanlines, rng(seed));
    const data = page.scanlines.slice();
    const png = page.png('stored');
    const { crc, covered, zlib } = idat(png);
    const where = `${fill} ${width}x${height} (${data.length} bytes, seed ${seed})`;
    expect(crc, `IDAT CRC-32, ${where}`).toBe(crc32(covered));
    expect(zlib.readUInt32BE(zlib.length - 4), `Adler-32, ${where}`).toBe(zlibAdler(data));
    expect(Buffer.compare(inflateSync(zlib), data), `inflated, ${where}`).toBe(0);
    return data.length;
  }

  it('match zlib for every page length mod 16 and around the 2048-byte chunk edges', () => {
    const lengths = new Set<number>();
    let seed = 1;
    // stride = 1 + ceil(width / 8) from 3 to 42, height 12..75: lengths 36..3150 in every residue.
    for (let stride = 3; stride <= 42; stride++) {
      for (let height = 12; height < 76; height += stride % 2 === 0 ? 5 : 1) {
        const width = (stride - 1) * 8 - (seed % 8);
        for (const fill of ['white', 'runs']) lengths.add(check(width, height, fill, seed++) % 2048);
      }
    }
    for (let r = 0; r < 16; r++)
      expect(
        [...lengths].some((n) => n % 16 === r),
        `a length ≡ ${r} mod 16`,
      ).toBe(true);
    // Lengths just below, at and above a chunk edge (2048 = 128 blocks of 16).
    for (const n of [2032, 2047, 2048, 2049, 2064, 4095, 4096, 4097]) {
      const height = 12;
      // stride × 12 = n is not always possible: cover n with the nearest strides above and below.
      for (const stride of [Math.floor(n / height), Math.ceil(n / height)]) {
        for (const fill of Object.keys(FILLS)) check((stride - 1) * 8, height, fill, seed++);
      }
    }
  });

  it('match zlib on large pages of every fill (many chunks, several stored blocks)', () => {
    let seed = 99;
    for (const [width, height] of [
      [1568, 784],
      [2000, 1000],
      [337, 1566],
    ] as const) {
      for (const fill of Object.keys(FILLS)) check(width, height, fill, seed++);
    }
  });
});
