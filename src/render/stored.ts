/**
 * A zlib stream of stored (uncompressed) deflate blocks: RFC 1950 header, RFC 1951 §3.2.4 blocks of
 * at most 65535 bytes, Adler-32 trailer (RFC 1950 §8.2). This is what zlib writes at level 0 given
 * room to write (the tests check they match byte for byte), so the 'fastest' compression gives the same
 * PNG bytes on every runtime: Node's zlib where present, this code elsewhere.
 */

const MAX_STORED = 65535;
// Largest n such that 255·n(n+1)/2 + (n+1)(65520) < 2^32 (RFC 1950 §9): sums stay exact in doubles
// anyway, but taking the modulo this rarely keeps the loop to adds.
const ADLER_BLOCK = 5552;

/** Adler-32 (RFC 1950 §8.2) of `bytes`. */
export function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const end = Math.min(i + ADLER_BLOCK, n);
    for (; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** Length of the stored zlib stream of `length` bytes. */
export function storedZlibLength(length: number): number {
  return 2 + 5 * Math.max(1, Math.ceil(length / MAX_STORED)) + length + 4;
}

/** `data` as a zlib stream of stored blocks (no compression). */
export function storedZlib(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / MAX_STORED));
  const out = new Uint8Array(storedZlibLength(data.length));
  out[0] = 0x78; // CMF: deflate, 32 KiB window (RFC 1950 §2.2)
  out[1] = 0x01; // FLG: level 0 ("fastest"), no dictionary, FCHECK making CMF·256+FLG a multiple of 31
  let o = 2;
  for (let i = 0; i < blocks; i++) {
    const start = i * MAX_STORED;
    const len = Math.min(MAX_STORED, data.length - start);
    out[o] = i === blocks - 1 ? 1 : 0; // BFINAL, BTYPE 00 (stored)
    out[o + 1] = len & 0xff; // LEN and NLEN, little-endian
    out[o + 2] = len >>> 8;
    out[o + 3] = ~len & 0xff;
    out[o + 4] = (~len >>> 8) & 0xff;
    out.set(data.subarray(start, start + len), o + 5);
    o += 5 + len;
  }
  const sum = adler32(data);
  out[o] = sum >>> 24; // big-endian (RFC 1950 §2.1)
  out[o + 1] = (sum >>> 16) & 0xff;
  out[o + 2] = (sum >>> 8) & 0xff;
  out[o + 3] = sum & 0xff;
  return out;
}
