// The page as a whole PNG, encoded in the core for the fast path: no copy of the scanlines out of
// memory, and a deflate built for these pages (long runs of white, rows of short ink patterns).
// PNG spec = W3C PNG (ISO/IEC 15948:2003); zlib = RFC 1950; deflate = RFC 1951.
import { pageH, pagePtr, stride } from './blit';
import { deflatePage, pageAdler, pageAdlerSet } from './deflate';

export let tablesPtr: usize = 0;
// Within tablesPtr: CRC-32 tables u32[16][256] (PNG spec annex D, sliced by 16); fixed-Huffman literal codes u32[256]
// (bits, bit count); the match codes u32[259] (bits, bit count) for lengths 3..258 at distance 1.
const CRC = 0;
const LIT_BITS = 16384;
const LIT_COUNT = LIT_BITS + 1024;
const MATCH_BITS = LIT_COUNT + 1024;
const MATCH_COUNT = MATCH_BITS + 259 * 4;
/** Bytes the encoder tables take. */
export const TABLE_BYTES: usize = MATCH_COUNT + 259 * 4;

// RFC 1951 §3.2.5: length codes 257..285, their base lengths and extra bits.
const LENGTH_BASE: StaticArray<u16> = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
  227, 258,
];
const LENGTH_EXTRA: StaticArray<u8> = [
  0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];

/** RFC 1951 §3.2.6: the fixed literal/length code of `v`, bit-reversed (deflate sends codes MSB
 *  first into an LSB-first stream); the length in bits is fixedLength(v). */
function fixedCode(v: u32): u32 {
  let code: u32;
  let n: u32;
  if (v < 144) {
    code = 0x30 + v;
    n = 8;
  } else if (v < 256) {
    code = 0x190 + v - 144;
    n = 9;
  } else if (v < 280) {
    code = v - 256;
    n = 7;
  } else {
    code = 0xc0 + v - 280;
    n = 8;
  }
  let r: u32 = 0;
  for (let i: u32 = 0; i < n; i++) r |= ((code >> i) & 1) << (n - 1 - i);
  return r;
}

function fixedLength(v: u32): u32 {
  return v < 144 ? 8 : v < 256 ? 9 : v < 280 ? 7 : 8;
}

/** Builds the encoder tables at `ptr`; prepare() calls it once per render (≈10 µs), since the
 *  region may have held other data (a page, text) since the last render. */
export function setTables(ptr: usize): void {
  tablesPtr = ptr;
  for (let n: u32 = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    store<u32>(ptr + CRC + ((<usize>n) << 2), c);
  }
  // Slicing-by-16: table k advances the CRC of a byte followed by k zero bytes.
  for (let k: usize = 1; k < 16; k++) {
    for (let n: usize = 0; n < 256; n++) {
      const prev = load<u32>(ptr + CRC + ((k - 1) << 10) + (n << 2));
      store<u32>(
        ptr + CRC + (k << 10) + (n << 2),
        (prev >>> 8) ^ load<u32>(ptr + CRC + ((<usize>(prev & 0xff)) << 2)),
      );
    }
  }
  for (let v: u32 = 0; v < 256; v++) {
    store<u32>(ptr + LIT_BITS + ((<usize>v) << 2), fixedCode(v));
    store<u32>(ptr + LIT_COUNT + ((<usize>v) << 2), fixedLength(v));
  }
  let s: i32 = 0;
  for (let len: u32 = 3; len <= 258; len++) {
    while (s < 28 && <u32>unchecked(LENGTH_BASE[s + 1]) <= len) s++;
    if (len == 258) s = 28;
    const extra = <u32>unchecked(LENGTH_EXTRA[s]);
    const sym = 257 + <u32>s;
    const n = fixedLength(sym);
    // code, then the extra bits (LSB first), then distance code 0 (distance 1): five zero bits.
    const bits = fixedCode(sym) | ((len - <u32>unchecked(LENGTH_BASE[s])) << n);
    store<u32>(ptr + MATCH_BITS + ((<usize>len) << 2), bits);
    store<u32>(ptr + MATCH_COUNT + ((<usize>len) << 2), n + extra + 5);
  }
}

export function crc32(p: usize, n: usize): u32 {
  let c: u32 = 0xffffffff;
  const t = tablesPtr + CRC;
  const end = p + n;
  // Sixteen bytes per step through sixteen tables (slicing-by-16), then byte by byte. The table
  // offsets ride in the loads' immediate offsets. Bytes 4..15 do not depend on the previous step's
  // CRC: each is a byte load (fewer operations than shift and mask out of a word), and their XORs
  // run while those of the first four (which wait) are in flight.
  while (p + 16 <= end) {
    const w0 = c ^ load<u32>(p);
    // A tree of XORs, four lookups per leaf: partial results free their registers as the loads
    // arrive (one chain of fifteen kept all sixteen live, and V8 spilled six of them to the stack).
    const k1 =
      load<u32>(t + ((<usize>load<u8>(p, 4)) << 2), 11 << 10) ^
      load<u32>(t + ((<usize>load<u8>(p, 5)) << 2), 10 << 10) ^
      (load<u32>(t + ((<usize>load<u8>(p, 6)) << 2), 9 << 10) ^
        load<u32>(t + ((<usize>load<u8>(p, 7)) << 2), 8 << 10));
    const k2 =
      load<u32>(t + ((<usize>load<u8>(p, 8)) << 2), 7 << 10) ^
      load<u32>(t + ((<usize>load<u8>(p, 9)) << 2), 6 << 10) ^
      (load<u32>(t + ((<usize>load<u8>(p, 10)) << 2), 5 << 10) ^
        load<u32>(t + ((<usize>load<u8>(p, 11)) << 2), 4 << 10));
    const k3 =
      load<u32>(t + ((<usize>load<u8>(p, 12)) << 2), 3 << 10) ^
      load<u32>(t + ((<usize>load<u8>(p, 13)) << 2), 2 << 10) ^
      (load<u32>(t + ((<usize>load<u8>(p, 14)) << 2), 1 << 10) ^
        load<u32>(t + ((<usize>load<u8>(p, 15)) << 2)));
    const k0 =
      load<u32>(t + ((<usize>(w0 & 0xff)) << 2), 15 << 10) ^
      load<u32>(t + ((<usize>((w0 >>> 8) & 0xff)) << 2), 14 << 10) ^
      (load<u32>(t + ((<usize>((w0 >>> 16) & 0xff)) << 2), 13 << 10) ^
        load<u32>(t + ((<usize>(w0 >>> 24)) << 2), 12 << 10));
    c = k1 ^ k2 ^ (k3 ^ k0);
    p += 16;
  }
  for (; p < end; p++) c = load<u32>(t + ((<usize>((c ^ (<u32>load<u8>(p))) & 0xff)) << 2)) ^ (c >>> 8);
  return ~c;
}

/** RFC 1950 §8 Adler-32 over 16-byte blocks, kept as column sums (the way of zlib's and Chromium's
 *  SIMD Adler-32): a block x_0..x_15 adds Σx to a, and Σ(16−k)·x_k plus 16·(a before it) to b. The
 *  weights are the same for every block, so the loop only sums bytes per column pair (p_j = x_2j +
 *  x_2j+1) and per even column (x_2j), and the running totals before each block; the weights apply
 *  once per chunk: (16−2j)·x_2j + (15−2j)·x_2j+1 = (15−2j)·p_j + x_2j. Chunks of 128 blocks keep the
 *  u16 lanes below 65536 (≤ 510 per block). Seven operations per block instead of eleven. */
export function adler32(p: usize, n: usize): u32 {
  let a: u64 = 1;
  let b: u64 = 0;
  const even = i16x8.splat(0xff);
  const w = i16x8(15, 13, 11, 9, 7, 5, 3, 1);
  while (n >= 16) {
    const blocks: usize = n >= 2048 ? 128 : n >> 4;
    let pairs = i16x8.splat(0); // Σ p_j per lane
    let evens = i16x8.splat(0); // Σ x_2j per lane
    let before = i32x4.splat(0); // Σ over blocks of the chunk's bytes before the block, in four parts
    for (let k: usize = 0; k < blocks; k++) {
      const v = v128.load(p);
      before = i32x4.add(before, i32x4.extadd_pairwise_i16x8_u(pairs));
      pairs = i16x8.add(pairs, i16x8.extadd_pairwise_i8x16_u(v));
      evens = i16x8.add(evens, v128.and(v, even));
      p += 16;
    }
    const len = <u64>(blocks << 4);
    const sums = i32x4.extadd_pairwise_i16x8_u(pairs);
    const weighted = i32x4.add(
      i32x4.add(i32x4.extmul_low_i16x8_u(pairs, w), i32x4.extmul_high_i16x8_u(pairs, w)),
      i32x4.extadd_pairwise_i16x8_u(evens),
    );
    const sumA =
      <u64>(<u32>i32x4.extract_lane(sums, 0)) +
      <u64>(<u32>i32x4.extract_lane(sums, 1)) +
      <u64>(<u32>i32x4.extract_lane(sums, 2)) +
      <u64>(<u32>i32x4.extract_lane(sums, 3));
    const sumP =
      <u64>(<u32>i32x4.extract_lane(before, 0)) +
      <u64>(<u32>i32x4.extract_lane(before, 1)) +
      <u64>(<u32>i32x4.extract_lane(before, 2)) +
      <u64>(<u32>i32x4.extract_lane(before, 3));
    const sumB =
      <u64>(<u32>i32x4.extract_lane(weighted, 0)) +
      <u64>(<u32>i32x4.extract_lane(weighted, 1)) +
      <u64>(<u32>i32x4.extract_lane(weighted, 2)) +
      <u64>(<u32>i32x4.extract_lane(weighted, 3));
    b = (b + len * a + 16 * sumP + sumB) % 65521;
    a = (a + sumA) % 65521;
    n -= <usize>len;
  }
  for (let i: usize = 0; i < n; i++) {
    a += <u64>load<u8>(p + i);
    b += a;
  }
  return <u32>(((b % 65521) << 16) | (a % 65521));
}

function be32(p: usize, v: u32): void {
  store<u32>(p, bswap<u32>(v));
}

/** Writes the page as a PNG at `out` and returns its length. `mode` 0: stored deflate blocks
 *  (level 0, no compression, the cheapest valid stream); 1: one fixed-Huffman block whose only
 *  matches are runs (distance 1), found eight bytes at a time; 2: the page deflate (deflate.ts), or
 *  stored blocks if those are smaller. `rowDist` is the distance from a scanline to the same pixel
 *  row of the text row above. */
export function writePng(out: usize, mode: u32, width: u32, rowDist: u32): usize {
  // §5.2 signature, §11.2.2 IHDR: bit depth 1, colour type 0, deflate, filter method 0, no interlace.
  store<u64>(out, 0x0a1a0a0d474e5089);
  be32(out + 8, 13);
  store<u32>(out + 12, 0x52444849); // "IHDR"
  be32(out + 16, width);
  be32(out + 20, pageH);
  store<u8>(out + 24, 1);
  store<u32>(out + 25, 0);
  be32(out + 29, crc32(out + 12, 17));
  // §11.2.4 IDAT: one chunk holding the whole zlib stream.
  const idat = out + 33;
  store<u32>(idat + 4, 0x54414449); // "IDAT"
  const z = idat + 8;
  store<u16>(z, 0x0178); // RFC 1950: CMF 0x78 (deflate, 32K window), FLG 0x01 (FCHECK; level unspecified)
  const data = pagePtr;
  const n = <usize>stride * pageH;
  let o = z + 2;
  let adler: u32 = 0;
  let adlerDone = false;
  if (mode == 2) {
    store<u16>(z, 0x5e78); // FLG 0x5E: FLEVEL 1 ("fast"), FCHECK
    o = deflatePage(data, n, o, stride, rowDist);
    // The page deflate sums Adler-32 as it builds its column keys (deflate.ts, adlerBand).
    adler = pageAdler;
    adlerDone = pageAdlerSet;
    if (o - (z + 2) > n + (n / 65535 + 1) * 5) {
      store<u16>(z, 0x0178);
      o = z + 2;
      mode = 0;
    }
  }
  if (mode == 0) {
    let left = n;
    let p = data;
    while (true) {
      const take = left > <usize>65535 ? <usize>65535 : left;
      store<u8>(o, take == left ? 1 : 0); // BFINAL, BTYPE 00
      store<u16>(o, <u16>take, 1);
      store<u16>(o, <u16>~take, 3);
      memory.copy(o + 5, p, take);
      o += 5 + take;
      p += take;
      left -= take;
      if (left == 0) break;
    }
  } else if (mode == 1) {
    o = deflateRuns(data, n, o);
  }
  be32(o, adlerDone ? adler : adler32(data, n));
  o += 4;
  const len = <u32>(o - z);
  be32(idat, len);
  be32(o, crc32(idat + 4, len + 4));
  o += 4;
  // §11.2.5 IEND.
  be32(o, 0);
  store<u32>(o + 4, 0x444e4549); // "IEND"
  be32(o + 8, 0xae426082);
  return o + 12 - out;
}

function deflateRuns(data: usize, n: usize, o: usize): usize {
  const bitsT = tablesPtr + MATCH_BITS;
  const countT = tablesPtr + MATCH_COUNT;
  const litT = tablesPtr + LIT_BITS;
  const litN = tablesPtr + LIT_COUNT;
  let acc: u64 = 3; // BFINAL 1, BTYPE 01 (fixed Huffman)
  let nb: u32 = 3;
  let i: usize = 0;
  let prev: u32 = 0x100; // no byte yet
  while (i < n) {
    const b = <u32>load<u8>(data + i);
    if (b == prev) {
      // A run of the previous byte: extend it eight bytes at a time, up to 258.
      const limit = n - i < 258 ? n : i + 258;
      const pattern = <u64>b * 0x0101010101010101;
      let j = i + 1;
      while (j + 8 <= limit && load<u64>(data + j) == pattern) j += 8;
      while (j < limit && <u32>load<u8>(data + j) == b) j++;
      const len = <u32>(j - i);
      if (len >= 3) {
        acc |= (<u64>load<u32>(bitsT + ((<usize>len) << 2))) << nb;
        nb += load<u32>(countT + ((<usize>len) << 2));
        i = j;
      } else {
        // One or two repeats: literals.
        acc |= (<u64>load<u32>(litT + ((<usize>b) << 2))) << nb;
        nb += load<u32>(litN + ((<usize>b) << 2));
        i++;
      }
    } else {
      acc |= (<u64>load<u32>(litT + ((<usize>b) << 2))) << nb;
      nb += load<u32>(litN + ((<usize>b) << 2));
      prev = b;
      i++;
    }
    if (nb >= 32) {
      store<u32>(o, <u32>acc);
      o += 4;
      acc >>= 32;
      nb -= 32;
    }
  }
  nb += 7; // end of block: symbol 256, seven zero bits
  while (nb > 0) {
    store<u8>(o, <u8>acc);
    o++;
    acc >>= 8;
    nb = nb > 8 ? nb - 8 : 0;
  }
  return o;
}
