import { deflateSync, gzipSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/render/crc32.js';
import { encodePng, encodePngSync } from '../../src/render/png.js';
import { renderScanlines } from '../../src/render/reference.js';
import { adler32, storedZlib } from '../../src/render/stored.js';

describe('crc32 and adler32', () => {
  it('match the published check values', () => {
    const ascii = new TextEncoder().encode('123456789');
    expect(crc32(ascii)).toBe(0xcbf43926); // CRC-32/ISO-HDLC check value
    expect(adler32(ascii)).toBe(0x091e01de);
    expect(adler32(new Uint8Array(0))).toBe(1);
    // Every length and offset around the 8-byte step, against zlib's CRC in the gzip trailer.
    const data = new Uint8Array(64).map((_, i) => (i * 2654435761) >>> 24);
    for (let start = 0; start < 9; start++) {
      for (let end = start; end <= 40; end++) {
        const gz = gzipSync(data.subarray(start, end));
        expect(crc32(data, start, end)).toBe(gz.readUInt32LE(gz.length - 8));
      }
    }
    const big = new Uint8Array(200_000).fill(255);
    expect(adler32(big)).toBe(adlerOfZlib(deflateSync(big)));
  });
});

function adlerOfZlib(stream: Uint8Array): number {
  const n = stream.length;
  return ((stream[n - 4]! << 24) | (stream[n - 3]! << 16) | (stream[n - 2]! << 8) | stream[n - 1]!) >>> 0;
}

describe('storedZlib', () => {
  it.each([0, 1, 65534, 65535, 65536, 131070, 200_001])(
    'equals zlib level 0 byte for byte (%i bytes)',
    (n) => {
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) data[i] = (i * 7919) & 0xff;
      const stored = storedZlib(data);
      expect(inflateSync(stored)).toEqual(Buffer.from(data));
      expect(Buffer.from(stored)).toEqual(
        deflateSync(data, { level: 0, chunkSize: Math.max(65536, n + 1024) }),
      );
    },
  );
});

describe('encodePng', () => {
  const [page] = renderScanlines('Deterministic bytes, ─│┼ and 😀.\n'.repeat(20), {
    shape: { width: 301, height: 97 },
  });
  const image = { width: page!.width, height: page!.height, scanlines: page!.scanlines.slice() };

  it("gives the same bytes on every path with 'fastest'", async () => {
    const zlib = encodePngSync(image, { path: 'zlib', compression: 'fastest' });
    expect(encodePngSync(image, { path: 'fflate', compression: 'fastest' })).toEqual(zlib);
    expect(await encodePng(image, { path: 'stream', compression: 'fastest' })).toEqual(zlib);
    expect(encodePngSync(image, { path: 'stream', compression: 'fastest' })).toEqual(zlib);
  });

  it("compresses with 'default' on every path, each deterministic", async () => {
    for (const path of ['zlib', 'stream', 'fflate'] as const) {
      const a = await encodePng(image, { path });
      expect(await encodePng(image, { path })).toEqual(a);
      expect(a.length).toBeLessThan(encodePngSync(image, { compression: 'fastest' }).length / 2);
    }
    expect(() => encodePngSync(image, { path: 'stream' })).toThrow(/'stream' is asynchronous/);
  });

  it('rejects scanlines of the wrong length, naming both lengths', () => {
    expect(() => encodePngSync({ width: 301, height: 97, scanlines: new Uint8Array(10) })).toThrow(
      /expected 3783 bytes \(97 × 39\), found 10/,
    );
  });
});
