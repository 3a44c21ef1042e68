/**
 * CRC-32 as PNG uses it (PNG spec §5.5 "Cyclic Redundancy Code algorithm", ISO 3309 / ITU-T V.42,
 * reflected polynomial 0xEDB88320). Slicing-by-8: eight 256-entry tables let the loop consume eight
 * bytes per step instead of one, which matters because the 'fastest' PNG path CRCs ~150 KB of stored
 * scanlines per page and this loop is then most of its cost.
 */

const TABLES = /* @__PURE__ */ (() => {
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  // Table k maps a byte that still has k more zero bytes to pass through the register.
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
})();

/** CRC-32 of `bytes[start, end)` (the whole array by default), as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = TABLES;
  let c = -1;
  let i = start;
  for (const stop = end - 7; i < stop; i += 8) {
    const lo = c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    c =
      t[1792 + (lo & 0xff)]! ^
      t[1536 + ((lo >>> 8) & 0xff)]! ^
      t[1280 + ((lo >>> 16) & 0xff)]! ^
      t[1024 + (lo >>> 24)]! ^
      t[768 + bytes[i + 4]!]! ^
      t[512 + bytes[i + 5]!]! ^
      t[256 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < end; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
