import { constants, deflateSync, inflateSync } from 'node:zlib';
import { zlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { inflateZlib, inflateZlibPortable } from '../../src/render/inflate.js';
import { renderScanlines } from '../../src/render/reference.js';

/** Deterministic test inputs: random bytes, runs, prose-like text and real page scanlines. */
function inputs(): Uint8Array[] {
  let seed = 12345;
  const rand = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const random = Uint8Array.from({ length: 70_000 }, () => Math.floor(rand() * 256));
  const runs = Uint8Array.from({ length: 200_000 }, (_, i) => (Math.floor(i / (1 + (i % 300))) % 3) * 85);
  const prose = new TextEncoder().encode('the snapshot of a history, drawn on pages. '.repeat(3000));
  const [page] = renderScanlines('Pages of 5-px glyphs.\n\n'.repeat(400), {
    shape: { width: 1568, height: 784 },
  });
  return [new Uint8Array(0), Uint8Array.of(7), random, runs, prose, page!.scanlines.slice()];
}

describe('inflateZlibPortable', () => {
  it('inflates what zlib (every level and strategy), fflate and CompressionStream write', async () => {
    for (const data of inputs()) {
      const streams: [string, Uint8Array][] = [];
      for (const level of [0, 1, 6, 9]) {
        for (const strategy of [
          constants.Z_DEFAULT_STRATEGY,
          constants.Z_RLE,
          constants.Z_HUFFMAN_ONLY,
          constants.Z_FIXED,
          constants.Z_FILTERED,
        ]) {
          streams.push([`zlib ${level}/${strategy}`, deflateSync(data, { level, strategy })]);
        }
      }
      streams.push(['zlib level 0, small chunks', deflateSync(data, { level: 0, chunkSize: 1024 })]);
      streams.push(['fflate 1', zlibSync(data, { level: 1 })], ['fflate 9', zlibSync(data, { level: 9 })]);
      const cs = new Blob([data]).stream().pipeThrough(new CompressionStream('deflate'));
      streams.push(['CompressionStream', new Uint8Array(await new Response(cs).arrayBuffer())]);
      for (const [name, stream] of streams) {
        expect(Buffer.compare(inflateZlibPortable(stream), data), `${name}, ${data.length} bytes`).toBe(0);
        expect(Buffer.compare(inflateZlibPortable(stream, 1), data), `${name}, tiny size hint`).toBe(0);
        expect(Buffer.compare(inflateZlib(stream), inflateSync(stream))).toBe(0);
      }
    }
  });

  it('rejects corrupt streams with an error that says what is wrong', () => {
    const data = new TextEncoder().encode('hello hello hello hello');
    const good = new Uint8Array(deflateSync(data)); // a copy: Buffer#slice would share memory
    expect(() => inflateZlibPortable(Uint8Array.of(1, 2, 3))).toThrow(/at least 6 bytes, found 3/);
    const badHeader = good.slice();
    badHeader[0] = 0x79;
    expect(() => inflateZlibPortable(badHeader)).toThrow(/not a zlib deflate stream/);
    const badSum = good.slice();
    badSum[badSum.length - 1]! ^= 1;
    expect(() => inflateZlibPortable(badSum)).toThrow(/Adler-32 expected/);
    expect(() => inflateZlibPortable(good.subarray(0, good.length - 6))).toThrow(
      /unexpected end|before its Adler/,
    );
    const type3 = Uint8Array.of(0x78, 0x9c, 0x07, 0, 0, 0, 0, 0);
    expect(() => inflateZlibPortable(type3)).toThrow(/invalid block type 3/);
    const stored = new Uint8Array(deflateSync(data, { level: 0 }));
    stored[5]! ^= 0xff; // NLEN
    expect(() => inflateZlibPortable(stored)).toThrow(/LEN and NLEN disagree/);
    expect(() => inflateZlib(badSum)).toThrow(/^inflate: /);
  });
});
