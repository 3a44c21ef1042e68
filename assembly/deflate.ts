// A deflate encoder (RFC 1951) made for 1-bit text pages: one dynamic-Huffman block per page. LZ77
// runs on columns of bands (byte x of up to 8 pixel rows as one key), with the candidates glyph rows
// repeat at — the column before (runs of white), the text row above (indentation, log prefixes,
// columns), one hash probe (repeated words) — and each band match then serves every pixel row of the
// band, extended per row; past each band's ink extent the rows are white and each row's tail is one
// match. The literal/length code is one of two learnt once per shape and atlas from prepare()'s
// sample page, picked per page from its parse, unless the page's first literals say it is unlike
// the sample (other glyphs): then the page builds its own from their counts. Everything it reads is
// the page (and the bytes after it, which get no bits), those codes and tables it rebuilds per page,
// and the choice and the codes use integer arithmetic (the one f64 sum compares integers exactly):
// the same scanlines give the same bytes on every runtime. Ideas, sources and what each paid are in
// docs/renderer.md §5 ("The core's deflate").

import { align16 } from './memory';

/** Work area layout (bytes from workPtr); see workBytes(). */
const HASH_BITS: u32 = 13;
// u64[1 << HASH_BITS]: the latest column of each 3-column hash: (its band's height − 1) << 61 | its
// key's index (band × key stride + x; < 2^29, keys being 8 bytes in 32-bit memory) << 32 | its page
// offset (band's first row × stride + x; < 2^31). Empty slots are bytes 0x7F: offset 0x7F7F7F7F,
// which is ahead of every position of a page (wasm32 memory holds < 2^31 bytes of page), so out of reach.
const HEAD = 0;
const LIT_FREQ = HEAD + (8 << HASH_BITS); // u32[288] literal/length symbol counts
const DIST_FREQ = LIT_FREQ + 288 * 4; // u32[32]
const CL_FREQ = DIST_FREQ + 32 * 4; // u32[19]
const LENS = CL_FREQ + 20 * 4; // u8[288 + 32] code lengths (litlen, then dist)
const CL_LENS = LENS + 320; // u8[20]
const CL_CODES = CL_LENS + 20; // u32[20]
const SORT = CL_CODES + 20 * 4; // u32[288] keys (freq << 9 | symbol), then counts, then lengths
const SYMS = SORT + 288 * 4; // u32[288] the symbols in sorted order
const COUNTS = SYMS + 288 * 4; // u32[32] codes per length; next codes in the upper half
const RLE = COUNTS + 32 * 4; // u32[320] code-length items (symbol | extra << 8)
const LEN_SYM = RLE + 320 * 4; // u8[259] length → symbol − 257 (static)
const DIST_SYM = LEN_SYM + 260; // u8[512] distance → symbol (zlib's dist_code layout, static)
const FIXED_END = DIST_SYM + 512;
// Then, sized per page shape (setDeflateWork): BANDS u32[2 × bands] (y0 << 4 | height, then the
// band's ink extent | its keys' end << 16: see bandExtent), TOKS u32[3 ×
// (stride / 3 + 1)] one band's matches (x, length, distance), KEYS u64[bands × keyStride] the column
// keys, SEQS u32 pairs: literals before a match, (distance symbol << 25 | length << 16 | distance).
// The codes (u32[288 + 32], bit-reversed, length in the top byte), then per match length its code
// with the extra bits (u32[259]: code | extra bits << code length | bits << 24), at a static address:
// the literal loop's table reads then take the table's address as a constant, not from a register.
const CODES_AT: usize = memory.data(320 * 4 + 259 * 4, 16);
const LEN_BITS_AT: usize = CODES_AT + 320 * 4;
let bandsAt: usize = 0;
let toksAt: usize = 0;
let keysAt: usize = 0;
let seqsAt: usize = 0;

/** Rows per band: a band is at most 8 pixel rows, so that a column of it is one u64 key. */
const BAND_MAX: u32 = 8;

// RFC 1951 §3.2.5.
const LENGTH_BASE: StaticArray<u16> = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
  227, 258,
];
const LENGTH_EXTRA: StaticArray<u8> = [
  0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: StaticArray<u16> = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
  6145, 8193, 12289, 16385, 24577,
];
const SHELL_GAPS: StaticArray<u8> = [132, 57, 23, 10, 4, 1];
// RFC 1951 §3.2.7: order of the code length code lengths.
const CL_ORDER: StaticArray<u8> = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

let work: usize = 0;

function keyStride(stride: u32): usize {
  return align16(<usize>stride);
}

/** Bands of a page of `h` rows whose text rows are `rowH` rows high: per text row one per 8 rows,
 *  and as many for the rows below the last text row. */
function maxBands(h: u32, rowH: u32): usize {
  return <usize>(h / rowH + 1) * ((rowH + BAND_MAX - 1) / BAND_MAX);
}

/** Bytes of work area a page of `h` scanlines of `stride` bytes, text rows of `rowH`, needs. */
export function workBytes(stride: u32, h: u32, rowH: u32): usize {
  const bands = maxBands(h, rowH);
  return (
    align16(FIXED_END) +
    align16(bands * 8) +
    align16((<usize>stride / 3 + 2) * 12) +
    bands * keyStride(stride) * 8 +
    ((<usize>stride * h) / 3 + 2) * 8
  );
}

/** Sets the work area for such pages and fills its static tables (once per prepare()). */
export function setDeflateWork(ptr: usize, stride: u32, h: u32, rowH: u32): void {
  const bands = maxBands(h, rowH);
  work = ptr;
  bandsAt = ptr + align16(FIXED_END);
  toksAt = bandsAt + align16(bands * 8);
  keysAt = toksAt + align16((<usize>stride / 3 + 2) * 12);
  seqsAt = keysAt + bands * keyStride(stride) * 8;
  let s: u32 = 0;
  for (let len: u32 = 3; len <= 258; len++) {
    while (s < 28 && <u32>unchecked(LENGTH_BASE[s + 1]) <= len) s++;
    store<u8>(ptr + LEN_SYM + len, <u8>(len == 258 ? 28 : s));
  }
  // dist 1..256 at [d − 1], larger ones at [256 + ((d − 1) >> 7)].
  let code: u32 = 0;
  for (let d: u32 = 1; d <= 32768; d++) {
    while (code < 29 && <u32>unchecked(DIST_BASE[code + 1]) <= d) code++;
    if (d <= 256) store<u8>(ptr + DIST_SYM + d - 1, <u8>code);
    else if (((d - 1) & 127) == 0) store<u8>(ptr + DIST_SYM + 256 + ((d - 1) >> 7), <u8>code);
  }
}

function distSym(d: u32): u32 {
  return d <= 256
    ? <u32>load<u8>(work + DIST_SYM + d - 1)
    : <u32>load<u8>(work + DIST_SYM + 256 + ((d - 1) >> 7));
}

/** Literals are counted in the page's first bands until LIT_MIN have been counted (every band of
 *  the sample page): enough to tell whether the learnt code fits the page, and to build the page's
 *  own code when it does not. */
const LIT_MIN: u32 = 2048;

/** The page gets its own literal/length code when the learnt one writes its counted literals in
 *  more than (1 + FALLBACK_PERMILLE / 1000) × their entropy. 85: prose, code and log pages of the
 *  bench corpus measure 55–85 (hex digits at 4x6 too), base64, digits, CJK, accented and
 *  upper-case text 80–1000+ (docs/renderer.md §5). */
const FALLBACK_PERMILLE: u64 = 85;

/** Shortest match of hash candidates, in columns (bytes per row). */
const MIN_HASH: u32 = 6;

/** Splits `rows` pixel rows from `y0` into bands of 8 rows and one of the rest (8 + 2 parses a
 *  10-row text row about 10% faster than 5 + 5, and no larger); returns the band count. */
function addBands(nbands: u32, y0: u32, rows: u32): u32 {
  while (rows > 0) {
    const h = rows < BAND_MAX ? rows : BAND_MAX;
    store<u32>(bandsAt + ((<usize>nbands) << 3), (y0 << 4) | h);
    nbands++;
    y0 += h;
    rows -= h;
  }
  return nbands;
}

/** The column keys of the band of `h` ≤ 8 rows at `row`: key x is byte x of every row, row r in bits
 *  8r..8r+7, rows past h zero. Sixteen columns per step by a byte transpose (three rounds of
 *  interleaves); loads may run up to 15 bytes past the band, never past the page's padding. */
function bandKeys(row: usize, s: usize, h: u32, keys: usize, ks: usize): void {
  const z = i32x4.splat(0);
  const lowBytes = i16x8.splat(0xff);
  const ones = i16x8.splat(1);
  // Adler-32 sums of the band's bytes in columns [0, min(ks, s)) (see adlerBand): per block, the
  // column-pair sums over the rows (sum), their prefix sums over the rows (pre), the even columns
  // (evens); across blocks in i32 lanes, the pair sums weighted by column (2l + 1 + 16 × block).
  let accA = z;
  let accU = z;
  let accX = z;
  let accE = z;
  let wv = i16x8(1, 3, 5, 7, 9, 11, 13, 15);
  const sixteen = i16x8.splat(16);
  for (let x: usize = 0; x < ks; x += 16) {
    const p = row + x;
    const r0 = v128.load(p);
    const r1 = h > 1 ? v128.load(p + s) : z;
    const r2 = h > 2 ? v128.load(p + 2 * s) : z;
    const r3 = h > 3 ? v128.load(p + 3 * s) : z;
    const r4 = h > 4 ? v128.load(p + 4 * s) : z;
    const r5 = h > 5 ? v128.load(p + 5 * s) : z;
    const r6 = h > 6 ? v128.load(p + 6 * s) : z;
    const r7 = h > 7 ? v128.load(p + 7 * s) : z;
    {
      let sum: v128, pre: v128, evens: v128;
      sum = i16x8.extadd_pairwise_i8x16_u(r0);
      pre = sum;
      evens = v128.and(r0, lowBytes);
      sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(r1));
      pre = i16x8.add(pre, sum);
      evens = i16x8.add(evens, v128.and(r1, lowBytes));
      sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(r2));
      pre = i16x8.add(pre, sum);
      evens = i16x8.add(evens, v128.and(r2, lowBytes));
      sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(r3));
      pre = i16x8.add(pre, sum);
      evens = i16x8.add(evens, v128.and(r3, lowBytes));
      sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(r4));
      pre = i16x8.add(pre, sum);
      evens = i16x8.add(evens, v128.and(r4, lowBytes));
      sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(r5));
      pre = i16x8.add(pre, sum);
      evens = i16x8.add(evens, v128.and(r5, lowBytes));
      sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(r6));
      pre = i16x8.add(pre, sum);
      evens = i16x8.add(evens, v128.and(r6, lowBytes));
      sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(r7));
      pre = i16x8.add(pre, sum);
      evens = i16x8.add(evens, v128.and(r7, lowBytes));
      if (x + 16 > s) {
        // Columns at or past the row end (the next row's bytes) count nothing: the last step again,
        // masked (the masked rows live only here, so the loop's vectors are not doubled).
        const m = i8x16.lt_u(
          i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
          i8x16.splat(<i8>(s > x ? s - x : 0)),
        );
        const a0 = v128.and(r0, m);
        const a1 = v128.and(r1, m);
        const a2 = v128.and(r2, m);
        const a3 = v128.and(r3, m);
        const a4 = v128.and(r4, m);
        const a5 = v128.and(r5, m);
        const a6 = v128.and(r6, m);
        const a7 = v128.and(r7, m);
        sum = i16x8.extadd_pairwise_i8x16_u(a0);
        pre = sum;
        evens = v128.and(a0, lowBytes);
        sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(a1));
        pre = i16x8.add(pre, sum);
        evens = i16x8.add(evens, v128.and(a1, lowBytes));
        sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(a2));
        pre = i16x8.add(pre, sum);
        evens = i16x8.add(evens, v128.and(a2, lowBytes));
        sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(a3));
        pre = i16x8.add(pre, sum);
        evens = i16x8.add(evens, v128.and(a3, lowBytes));
        sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(a4));
        pre = i16x8.add(pre, sum);
        evens = i16x8.add(evens, v128.and(a4, lowBytes));
        sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(a5));
        pre = i16x8.add(pre, sum);
        evens = i16x8.add(evens, v128.and(a5, lowBytes));
        sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(a6));
        pre = i16x8.add(pre, sum);
        evens = i16x8.add(evens, v128.and(a6, lowBytes));
        sum = i16x8.add(sum, i16x8.extadd_pairwise_i8x16_u(a7));
        pre = i16x8.add(pre, sum);
        evens = i16x8.add(evens, v128.and(a7, lowBytes));
      }
      accA = i32x4.add(accA, i32x4.dot_i16x8_s(sum, ones));
      accU = i32x4.add(accU, i32x4.dot_i16x8_s(pre, ones));
      accX = i32x4.add(accX, i32x4.dot_i16x8_s(sum, wv));
      accE = i32x4.add(accE, i32x4.dot_i16x8_s(evens, ones));
      wv = i16x8.add(wv, sixteen);
    }
    const a0 = i8x16.shuffle(r0, r1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const a1 = i8x16.shuffle(r0, r1, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const b0 = i8x16.shuffle(r2, r3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const b1 = i8x16.shuffle(r2, r3, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const c0 = i8x16.shuffle(r4, r5, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const c1 = i8x16.shuffle(r4, r5, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const d0 = i8x16.shuffle(r6, r7, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const d1 = i8x16.shuffle(r6, r7, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const e0 = i16x8.shuffle(a0, b0, 0, 8, 1, 9, 2, 10, 3, 11);
    const e1 = i16x8.shuffle(a0, b0, 4, 12, 5, 13, 6, 14, 7, 15);
    const e2 = i16x8.shuffle(a1, b1, 0, 8, 1, 9, 2, 10, 3, 11);
    const e3 = i16x8.shuffle(a1, b1, 4, 12, 5, 13, 6, 14, 7, 15);
    const f0 = i16x8.shuffle(c0, d0, 0, 8, 1, 9, 2, 10, 3, 11);
    const f1 = i16x8.shuffle(c0, d0, 4, 12, 5, 13, 6, 14, 7, 15);
    const f2 = i16x8.shuffle(c1, d1, 0, 8, 1, 9, 2, 10, 3, 11);
    const f3 = i16x8.shuffle(c1, d1, 4, 12, 5, 13, 6, 14, 7, 15);
    const k = keys + (x << 3);
    v128.store(k, i32x4.shuffle(e0, f0, 0, 4, 1, 5));
    v128.store(k, i32x4.shuffle(e0, f0, 2, 6, 3, 7), 16);
    v128.store(k, i32x4.shuffle(e1, f1, 0, 4, 1, 5), 32);
    v128.store(k, i32x4.shuffle(e1, f1, 2, 6, 3, 7), 48);
    v128.store(k, i32x4.shuffle(e2, f2, 0, 4, 1, 5), 64);
    v128.store(k, i32x4.shuffle(e2, f2, 2, 6, 3, 7), 80);
    v128.store(k, i32x4.shuffle(e3, f3, 0, 4, 1, 5), 96);
    v128.store(k, i32x4.shuffle(e3, f3, 2, 6, 3, 7), 112);
  }
  bandA = lanes(accA);
  bandU = lanes(accU);
  bandX = lanes(i32x4.sub(accX, accE));
}

/** The band's Adler-32 sums from bandKeys: Σ bytes, Σ over rows of the prefix sums of the row
 *  sums, Σ column × byte; over columns [0, min(keys' end, stride)). */
let bandA: u64 = 0;
let bandU: u64 = 0;
let bandX: u64 = 0;
/** Adler-32 of the page so far (RFC 1950 §8): Σ bytes (not reduced), and b without its n (reduced). */
let adlerA: u64 = 0;
let adlerB: u64 = 0;

function lanes(v: v128): u64 {
  return (
    <u64>(<u32>i32x4.extract_lane(v, 0)) +
    <u64>(<u32>i32x4.extract_lane(v, 1)) +
    <u64>(<u32>i32x4.extract_lane(v, 2)) +
    <u64>(<u32>i32x4.extract_lane(v, 3))
  );
}

/**
 * Adds band (y0, h rows) to the page's Adler-32 from bandKeys' sums over columns [0, e), the rest of
 * each row being white (e ≥ the band's ink extent). Adler's b is n + Σ (n − i)·x_i over the page's n
 * bytes, linear in the bytes, so a band adds (n − y0·s)·A − s·Σ r·A_r − Σ x·v (A_r: row r's sum);
 * Σ r·A_r is 8·A − Σ of the prefix sums (bandKeys sums 8 rows, those past h being zero). The white
 * columns [e, s) add 255 per byte in closed form.
 */
function adlerBand(y0: u32, h: u32, e: u32, s: u32, n: usize): void {
  const t = <u64>(s - e) * 255; // one row's white tail
  const hh = <u64>h;
  const sumA = bandA + hh * t;
  const sumR = 8 * bandA - bandU + (t * hh * (hh - 1)) / 2;
  const sumX = bandX + (hh * t * <u64>(s + e - 1)) / 2;
  adlerA += sumA;
  adlerB = (adlerB + (<u64>n - <u64>y0 * <u64>s) * sumA - <u64>s * sumR - sumX) % 65521;
}

/** The page's Adler-32 after deflatePage, if `pageAdlerSet` (strides up to FUSED_ADLER_MAX). */
export let pageAdler: u32 = 0;
export let pageAdlerSet: bool = false;
/** Widest rows whose Adler sums fit bandKeys' i32 lanes (Σ x·v ≤ 1020 · stride² per band). */
const FUSED_ADLER_MAX: u32 = 2048;

/**
 * The band's ink extent: the first column from which every byte of its `h` rows is white (0xFF) to
 * the row end (at least 1: column 0 is the filter byte). Most of a text page is white past the end
 * of its lines; the parse and the keys stop there, and each row's white tail is coded as one match
 * (expandBand). 16 columns per step from the right: the AND of the rows, compared with white.
 */
function bandExtent(row: usize, s: usize, h: u32, stride: u32): u32 {
  const white = i8x16.splat(-1);
  let e = stride;
  while (e >= 17) {
    let v = v128.load(row + e - 16);
    for (let r: u32 = 1; r < h; r++) v = v128.and(v, v128.load(row + <usize>r * s + e - 16));
    const m = <u32>i8x16.bitmask(v128.not(i8x16.eq(v, white)));
    if (m != 0) return e - 16 + (32 - <u32>clz(m));
    e -= 16;
  }
  while (e > 1) {
    let a = <u32>load<u8>(row + e - 1);
    for (let r: u32 = 1; r < h; r++) a &= <u32>load<u8>(row + <usize>r * s + e - 1);
    if (a != 0xff) break;
    e--;
  }
  return e;
}

/** The first x in [lo, e] from which the bytes at p are white up to e (16 per step from the right). */
function whiteFrom(p: usize, e: u32, lo: u32): u32 {
  const white = i8x16.splat(-1);
  while (e >= lo + 16) {
    const m = <u32>i8x16.bitmask(v128.not(i8x16.eq(v128.load(p + e - 16), white)));
    if (m != 0) return e - 16 + (32 - <u32>clz(m));
    e -= 16;
  }
  while (e > lo && load<u8>(p + e - 1) == 0xff) e--;
  return e;
}

/** Columns from the start on which the key runs at a and b agree (the first is known equal), up to max. */
function extendCols(a: usize, b: usize, max: u32): u32 {
  let len: u32 = 1;
  while (len < max && load<u64>(a + ((<usize>len) << 3)) == load<u64>(b + ((<usize>len) << 3))) len++;
  return len;
}

function hash3(k0: u64, k1: u64, k2: u64): usize {
  const v = (k0 + rotl<u64>(k1, 21) + rotl<u64>(k2, 42)) * 0x9e3779b97f4a7c15;
  return <usize>(v >> (64 - HASH_BITS));
}

/** Whether the `s` bytes at a equal those at b (16 at a time; b = a − s, so loads stay in the page). */
function rowsEqual(a: usize, b: usize, s: usize): bool {
  if (s < 16) {
    for (let i: usize = 0; i < s; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
    return true;
  }
  let i: usize = 0;
  for (; i + 16 <= s; i += 16) {
    if (v128.any_true(v128.xor(v128.load(a + i), v128.load(b + i)))) return false;
  }
  return i == s || !v128.any_true(v128.xor(v128.load(a + s - 16), v128.load(b + s - 16)));
}

/** Set while learnLiteralCode deflates its sample page. */
let learning: bool = false;

/** Deflates the sample page at `data` (prepare()'s sample text) into scratch at `o`, counting
 *  every literal, and keeps its literal/length code for every page that follows, so that pages
 *  skip counting and building that code and a page's bytes still depend on that page alone. */
export function learnLiteralCode(data: usize, n: usize, o: usize, stride: u32, rowDist: u32): void {
  learning = true;
  deflatePage(data, n, o, stride, rowDist);
  learning = false;
}

/** The sample's literal counts (u32[256]) and their total. */
const SAMPLE_FREQ: usize = memory.data(256 * 4, 16);
let sampleLits: u32 = 1;
/** Bytes covered by this page's matches, and literals counted in its first bands. */
let matched: usize = 0;
let counted: u32 = 0;

/** Counts `k` literal bytes at p into LIT_FREQ (which counts only lengths while parsing). */
function countLits(p: usize, k: u32): void {
  counted += k;
  const f = work + LIT_FREQ;
  for (let i: usize = 0; i < <usize>k; i++) {
    const c = f + ((<usize>load<u8>(p + i)) << 2);
    store<u32>(c, load<u32>(c) + 1);
  }
}

/** Counts the literals of sequences q.. (the bytes between matches), the first starting at src. */
function countSeqLits(q: usize, src: usize): void {
  for (; q < nseq; q++) {
    const at = seqsAt + (q << 3);
    const k = load<u32>(at);
    countLits(src, k);
    src += <usize>k + <usize>((load<u32>(at, 4) >> 16) & 0x1ff);
  }
}

/** log2(x) × 256 for x ≥ 1, the mantissa taken as linear (below the true value by < 0.09). */
function log2x256(x: u32): u64 {
  const z = clz(x);
  return ((<u64>(31 - z)) << 8) | (<u64>(((x << z) >> 23) & 0xff));
}

/** Returns how much more the counted literals (counts in LIT_FREQ[0..255]) cost under the code
 *  lengths now at LENS than their entropy (their own code's bits, near enough), in thousandths: 0
 *  if no more. */
function sumLits(): u64 {
  const w = work;
  let bits: u64 = 0;
  let clc: u64 = 0;
  for (let b: usize = 0; b < 256; b++) {
    const c = load<u32>(w + LIT_FREQ + (b << 2));
    bits += <u64>c * <u64>load<u8>(w + LENS + b);
    clc += <u64>c * log2x256(c); // 0 × anything if c is 0
  }
  if (counted == 0) return 0;
  const ent = <u64>counted * log2x256(counted) - clc + 1;
  const learnt = bits << 8;
  return learnt > ent ? ((learnt - ent) * 1000) / ent : 0;
}

/** Per-length codes with their extra bits from the codes at CODES_AT, so a match costs two reads. */
function lengthCodes(): void {
  for (let len: u32 = 3; len <= 258; len++) {
    const s = <u32>load<u8>(work + LEN_SYM + len);
    const c = load<u32>(CODES_AT + ((<usize>(257 + s)) << 2));
    const cl = c >> 24;
    const extra = len - <u32>unchecked(LENGTH_BASE[s]);
    store<u32>(
      LEN_BITS_AT + ((<usize>len) << 2),
      (c & 0xffff) | (extra << cl) | ((cl + <u32>unchecked(LENGTH_EXTRA[s])) << 24),
    );
  }
}
/** Two literal/length codes learnt from the sample: lengths as frequent as an average literal, and
 *  16× that (pages of many matches). Each: codes u32[288], per-length codes u32[259], lengths u8[288],
 *  the sample's mean literal bits × 256. */
const SLOT_BYTES: usize = 288 * 4 + 288 + 4;
const SLOTS: usize = memory.data(2 * (288 * 4 + 288 + 4), 16);

/** Builds slot k's code from the sample's counts, each length counted 1 + literals >> shift times. */
function learnSlot(k: usize, shift: u32): void {
  const w = work;
  const f = w + LIT_FREQ;
  for (let b: usize = 0; b < 286; b++) {
    const c = b < 256 ? load<u32>(SAMPLE_FREQ + (b << 2)) : b > 256 ? sampleLits >> shift : 0;
    store<u32>(f + (b << 2), c + 1);
  }
  buildCode(f, 286, w + LENS, CODES_AT, 14);
  let bits: u64 = 0;
  for (let b: usize = 0; b < 256; b++) {
    bits += <u64>load<u32>(SAMPLE_FREQ + (b << 2)) * <u64>load<u8>(w + LENS + b);
  }
  const slot = SLOTS + k * SLOT_BYTES;
  memory.copy(slot, CODES_AT, 288 * 4);
  memory.copy(slot + 288 * 4, w + LENS, 288);
  store<u32>(slot + SLOT_BYTES - 4, <u32>((bits << 8) / <u64>sampleLits));
}

/** Takes the slot whose code writes this page's literals (at the sample's mean) and its lengths
 *  in fewer bits (× 256; integers below 2^53 in f64, so exact): both are known from the parse
 *  alone, so a page's bytes depend on that page only. The first slot wins a tie. */
function pickSlot(n: usize): void {
  const w = work;
  const lits = <f64>(n - matched);
  let best: usize = SLOTS;
  let bestBits: f64 = Infinity;
  for (let slot = SLOTS; slot < SLOTS + 2 * SLOT_BYTES; slot += SLOT_BYTES) {
    let bits = lits * <f64>load<u32>(slot + SLOT_BYTES - 4);
    for (let s: usize = 257; s < 286; s++) {
      bits += <f64>load<u32>(w + LIT_FREQ + (s << 2)) * <f64>((<u32>load<u8>(slot + 288 * 4 + s)) << 8);
    }
    if (bits < bestBits) {
      bestBits = bits;
      best = slot;
    }
  }
  memory.copy(CODES_AT, best, 288 * 4);
  memory.copy(w + LENS, best + 288 * 4, 286);
}

let nseq: usize = 0;

/** Appends a match after `lit` literals to the sequences and counts its symbols. */
function pushMatch(lit: u32, len: u32, dist: u32): void {
  const w = work;
  const q = seqsAt + (nseq << 3);
  store<u32>(q, lit);
  const ds = distSym(dist);
  store<u32>(q + 4, (ds << 25) | (len << 16) | dist);
  nseq++;
  matched += len;
  const lf = w + LIT_FREQ + ((257 + <usize>load<u8>(w + LEN_SYM + len)) << 2);
  store<u32>(lf, load<u32>(lf) + 1);
  const df = w + DIST_FREQ + ((<usize>ds) << 2);
  store<u32>(df, load<u32>(df) + 1);
}

/**
 * Greedy LZ77 over the columns of band `b` (keys at kb): the column before, the same column of the
 * band above (keys at ka, `aboveDist` bytes back; ka 0 when there is none), one hash probe. Writes
 * the matches (x, length, distance) to TOKS and returns their count.
 */
function parseBand(
  b: u32,
  y0: u32,
  h: u32,
  kb: usize,
  ka: usize,
  aboveDist: u32,
  stride: u32,
  ks: usize,
  ext: u32,
  kend: u32,
  kendA: u32,
): usize {
  const w = work;
  let nt: usize = 0;
  let x: u32 = 0;
  let misses: u32 = 0; // positions since the last match
  const kbIndex = b * <u32>ks; // index of the band's first key
  const pos0 = y0 * stride; // page offset of the band's first row
  const hinfo = (h - 1) << 29;
  // Positions up to the ink extent; matches may run into the white past it as far as keys were built.
  while (x < ext && x + 3 <= stride) {
    const kx = kb + ((<usize>x) << 3);
    const cur = load<u64>(kx);
    const rest = (stride < kend ? stride : kend) - x;
    const max = rest < 258 ? rest : 258;
    let best: u32 = 0;
    let dist: u32 = 0;
    if (x > 0 && load<u64>(kx - 8) == cur) {
      best = extendCols(kx, kx - 8, max);
      dist = 1;
    }
    if (best < max && x < kendA && load<u64>(ka + ((<usize>x) << 3)) == cur) {
      const l = extendCols(kx, ka + ((<usize>x) << 3), max < kendA - x ? max : kendA - x);
      if (l > best) {
        best = l;
        dist = aboveDist;
      }
    }
    if (best < max) {
      const hp = w + HEAD + (hash3(cur, load<u64>(kx + 8), load<u64>(kx + 16)) << 3);
      const cand = load<u64>(hp);
      store<u64>(hp, ((<u64>(hinfo | (kbIndex + x))) << 32) | (<u64>(pos0 + x)));
      // Candidate checks without branches (they go either way at random on text seen for the first
      // time): the entry holds what they need (no band to look up, no multiply); an empty slot or
      // a candidate out of reach reads this position's own key, and only the outcome is branched on.
      const hi = <u32>(cand >> 32);
      const d = <i32>(pos0 + x) - <i32>(<u32>cand);
      const ok = (hi >> 29 == h - 1) & (d > 0) & (d <= 32768);
      const kc = select<usize>(keysAt + ((<usize>(hi & 0x1fffffff)) << 3), kx, ok);
      if (ok & (load<u64>(kc) == cur)) {
        // Keys of the candidate's band end at its keys' end (its column is below its extent).
        const ci = hi & 0x1fffffff;
        const cb = ci / <u32>ks;
        const kc1 = (load<u32>(bandsAt + ((<usize>cb) << 3), 4) >> 16) - (ci - cb * <u32>ks);
        const l = extendCols(kx, kc, max < kc1 ? max : kc1);
        if (l >= MIN_HASH && l > best) {
          best = l;
          dist = <u32>d;
        }
      }
    }
    if (best >= 3) {
      const t = toksAt + nt * 12;
      store<u32>(t, x);
      store<u32>(t, best, 4);
      store<u32>(t, dist, 8);
      nt++;
      x += best;
      misses = 0;
    } else {
      // After 8 misses in a row, step 2 columns, after 16 3, … (LZ4's acceleration, snappy's skip):
      // text seen for the first time costs fewer probes; 12% faster, 2.5% larger on the bench.
      misses++;
      x += 1 + (misses >> 3);
    }
  }
  return nt;
}

/** Bytes of the next row that the last match already covers (matches may run past a row end). */
let carry: u32 = 0;

/** How far from `from` (known to repeat at distance d up to there) the bytes at p repeat at
 *  distance d, up to `lim`; 16 bytes per step (the first unequal lane of a SIMD compare: white
 *  tails and copied rows run long). */
function repeatEnd(p: usize, from: u32, d: u32, lim: u32): u32 {
  let e = from;
  while (e < lim) {
    const m = <u32>i8x16.bitmask(v128.not(i8x16.eq(v128.load(p + e), v128.load(p + e - d))));
    if (m != 0) {
      e += <u32>ctz(m);
      break;
    }
    e += 16;
  }
  return e < lim ? e : lim;
}

/** Matches at distance d covering [at, e) (e − at ≥ 3), each at most 258 bytes. */
function pushRun(lit: u32, at: u32, e: u32, d: u32): void {
  while (at < e) {
    let l = e - at > 258 ? 258 : e - at;
    if (e - at - l != 0 && e - at - l < 3) l = e - at - 3;
    pushMatch(lit, l, d);
    lit = 0;
    at += l;
  }
}

/**
 * The `nt` matches of the band of `h` rows at y0 in each of its pixel rows, after `lit` pending
 * literals. Each match is extended as far as its row repeats at its distance (sparse rows repeat
 * further than the band), across the row end too; a match that ends at a row end tries the text
 * row above (`aboveDist`, 0 if none), whose next row often starts the same (indentation, log
 * prefixes); a row equal to the one above is one copy. A match that starts inside the ink stops
 * at the band's extent `ext` unless it reaches it; each row's white tail is then one match (the
 * text row above if its band's extent `extA` or a scan says it is white there, else a run).
 * `left` is the page's bytes from y0 on. Returns the
 * literals pending after the band.
 */
function expandBand(
  data: usize,
  stride: u32,
  y0: u32,
  h: u32,
  nt: usize,
  lit: u32,
  aboveDist: u32,
  left: u32,
  ext: u32,
  extA: u32,
): u32 {
  const S = <usize>stride;
  for (let r: u32 = 0; r < h; r++) {
    const y = y0 + r;
    const p = data + <usize>y * S;
    const pageEnd = left - r * stride; // bytes from p to the page end
    let xs = carry;
    if (xs >= stride) {
      carry = xs - stride;
      continue;
    }
    carry = 0;
    if (y > 0 && rowsEqual(p, p - S, S)) {
      const e = repeatEnd(p, stride, stride, pageEnd);
      if (e - xs >= 3) {
        pushRun(lit, xs, e, stride);
        lit = 0;
        xs = e;
      }
    } else {
      for (let k: usize = 0; k < nt && xs < stride; k++) {
        const t = toksAt + k * 12;
        let start = load<u32>(t);
        const tend = start + load<u32>(t, 4);
        if (tend <= xs + 2) continue;
        if (start < xs) start = xs;
        let d = load<u32>(t, 8);
        lit += start - xs;
        // Up to the band's extent (past it the row is white: the tail below), or on past the row end
        // if the match reaches it already.
        let e = tend < ext ? repeatEnd(p, tend, d, ext) : tend;
        if (e >= ext) e = repeatEnd(p, e, d, pageEnd);
        if (e == stride && aboveDist != 0 && <usize>y * S + start >= aboveDist) {
          const e2 = repeatEnd(p, start, aboveDist, pageEnd);
          if (e2 > e) {
            e = e2;
            d = aboveDist;
          }
        }
        pushRun(lit, start, e, d);
        lit = 0;
        xs = e;
      }
    }
    if (xs >= stride) {
      carry = xs - stride;
      continue;
    }
    // The white tail: literals up to this row's own extent, then one match to the row end — the
    // text row above if it is white there too (it may go on into the next row), else a run of 0xFF.
    const er = xs < ext ? whiteFrom(p, ext, xs) : xs;
    lit += er - xs;
    xs = er;
    if (stride - xs >= 4) {
      if (
        aboveDist != 0 &&
        <usize>y * S + xs >= aboveDist &&
        (extA <= xs || whiteFrom(p - aboveDist, stride, xs) == xs)
      ) {
        const e = repeatEnd(p, stride, aboveDist, pageEnd);
        pushRun(lit, xs, e, aboveDist);
        lit = 0;
        carry = e - stride;
        continue;
      }
      if (load<u8>(p + xs - 1) != 0xff) {
        lit += 1;
        xs++;
      }
      pushRun(lit, xs, stride, 1);
      lit = 0;
      continue;
    }
    lit += stride - xs;
  }
  return lit;
}

/**
 * Deflates the `n` bytes of scanlines at `data` into `o` as one final dynamic-Huffman block and
 * returns the end. `rowDist` is the distance to the same pixel row of the text row above (stride ×
 * cell height). The page is parsed in bands of ≤ 8 pixel rows, a column of a band being one key: a
 * match of columns is a match of the same length and distance in every pixel row of the band.
 */
export function deflatePage(data: usize, n: usize, o: usize, stride: u32, rowDist: u32): usize {
  const w = work;
  memory.fill(w + HEAD, 0x7f, 8 << HASH_BITS);
  memory.fill(w + LIT_FREQ, 0, 288 * 4 + 32 * 4 + 20 * 4);
  const learn = learning;
  const S = <usize>stride;
  const ks = keyStride(stride);
  const H = <u32>(n / S);
  const T = rowDist / stride;
  const perRow = (T + BAND_MAX - 1) / BAND_MAX;
  // Bands: each text row's, then those of the rows below the last text row.
  const textRows = H / T;
  let nbands: u32 = 0;
  for (let t: u32 = 0; t < textRows; t++) nbands = addBands(nbands, t * T, T);
  const below = H - textRows * T;
  nbands = addBands(nbands, textRows * T, below);

  nseq = 0;
  matched = 0;
  counted = 0;
  carry = 0;
  adlerA = 0;
  adlerB = 0;
  const fused = stride <= FUSED_ADLER_MAX;
  let lit: u32 = 0; // literals since the last match
  for (let b: u32 = 0; b < nbands; b++) {
    const info = load<u32>(bandsAt + ((<usize>b) << 3));
    const y0 = info >> 4;
    const h = info & 15;
    const row = data + <usize>y0 * S;
    const kb = keysAt + <usize>b * ks * 8;
    const ext = bandExtent(row, S, h, stride);
    // Keys up to the extent, two columns on for the last position's hash, in whole steps of 16.
    const kend = <u32>(align16(<usize>ext + 2) < ks ? align16(<usize>ext + 2) : ks);
    store<u32>(bandsAt + ((<usize>b) << 3), ext | (kend << 16), 4);
    bandKeys(row, S, h, kb, <usize>kend);
    if (fused) adlerBand(y0, h, kend < stride ? kend : stride, stride, n);
    // The same band of the text row above.
    let ka: usize = 0;
    let aboveDist: u32 = 0;
    let kendA: u32 = 0;
    let extA: u32 = 0xffff;
    if (b >= perRow) {
      const ia = load<u32>(bandsAt + ((<usize>(b - perRow)) << 3));
      const d = (y0 - (ia >> 4)) * stride;
      if ((ia & 15) == h && d <= 32768) {
        ka = keysAt + <usize>(b - perRow) * ks * 8;
        aboveDist = d;
        const ea = load<u32>(bandsAt + ((<usize>(b - perRow)) << 3), 4);
        extA = ea & 0xffff;
        kendA = ea >> 16;
      }
    }
    const nt = parseBand(b, y0, h, kb, ka, aboveDist, stride, ks, ext, kend, kendA);
    const q = nseq;
    const src = row + <usize>carry - <usize>lit; // where the band's first sequence starts
    lit = expandBand(data, stride, y0, h, nt, lit, aboveDist, <u32>(n - <usize>y0 * S), ext, extA);
    // The band's literals (with those pending before it, not those pending after) until LIT_MIN.
    if (learn || counted < LIT_MIN) countSeqLits(q, src);
  }
  pageAdlerSet = fused;
  pageAdler = <u32>((((adlerB + <u64>n) % 65521) << 16) | ((adlerA + 1) % 65521));
  // Codes: at least two symbols in each alphabet, so every code is complete (some decoders insist;
  // the learnt literal/length code has all 286).
  if (load<u32>(w + DIST_FREQ) == 0) store<u32>(w + DIST_FREQ, 1);
  if (countUsed(w + DIST_FREQ, 30) < 2) {
    if (load<u32>(w + DIST_FREQ + 4) == 0) store<u32>(w + DIST_FREQ + 4, 1);
  }
  if (learn) {
    // Every band of the sample was counted; now the literals after its last match.
    countLits(data + n - <usize>lit, lit);
    memory.copy(SAMPLE_FREQ, w + LIT_FREQ, 256 * 4);
    sampleLits = counted + 1;
    for (let k: usize = 0; k < 2; k++) learnSlot(k, 8 - 4 * <u32>k);
  }
  pickSlot(n);
  const nlit: u32 = 286; // unused length symbols of a page's own code are coded as length 0
  // The learnt code against the page's counted literals: a page unlike the sample (other glyphs,
  // other letters) gets its own code, built from those counts scaled to the page's literals.
  if (!learn && sumLits() > FALLBACK_PERMILLE) {
    // 16.16 fixed point: integers only; plus 1 so that a literal the sample missed has a code.
    const scale: u64 = ((<u64>(n - matched)) << 16) / <u64>counted;
    for (let b: usize = 0; b < 256; b++) {
      const f = w + LIT_FREQ + (b << 2);
      store<u32>(f, <u32>((<u64>load<u32>(f) * scale) >> 16) + 1);
    }
    store<u32>(w + LIT_FREQ + (256 << 2), 1); // end of block
    buildCode(w + LIT_FREQ, 286, w + LENS, CODES_AT, 14);
  }
  lengthCodes();
  buildCode(w + DIST_FREQ, 30, w + LENS + 288, CODES_AT + 288 * 4, 15);
  let ndist: u32 = 30;
  while (ndist > 1 && load<u8>(w + LENS + 288 + ndist - 1) == 0) ndist--;

  // Code lengths of both alphabets as one sequence, run-length coded (§3.2.7).
  memory.copy(w + LENS + nlit, w + LENS + 288, ndist); // contiguous for the RLE
  const total = nlit + ndist;
  const nrle = rleLengths(w + LENS, total, w + RLE, w + CL_FREQ);
  buildCode(w + CL_FREQ, 19, w + CL_LENS, w + CL_CODES, 7);
  memory.copy(w + LENS + 288, w + LENS + nlit, ndist); // back in place
  let ncl: u32 = 19;
  while (ncl > 4 && load<u8>(w + CL_LENS + <usize>unchecked(CL_ORDER[ncl - 1])) == 0) ncl--;

  // Header: BFINAL 1, BTYPE 10, HLIT, HDIST, HCLEN, the code length code, the coded lengths.
  let acc: u64 =
    1 | (2 << 1) | ((<u64>(nlit - 257)) << 3) | ((<u64>(ndist - 1)) << 8) | ((<u64>(ncl - 4)) << 13);
  let nb: u32 = 17;
  for (let k: u32 = 0; k < ncl; k++) {
    acc |= (<u64>load<u8>(w + CL_LENS + <usize>unchecked(CL_ORDER[k]))) << nb;
    nb += 3;
    store<u64>(o, acc);
    const f = nb & ~7;
    o += f >> 3;
    acc >>= f;
    nb -= f;
  }
  for (let k: usize = 0; k < nrle; k++) {
    const item = load<u32>(w + RLE + (k << 2));
    const sym = <usize>(item & 0xff);
    const c = load<u32>(w + CL_CODES + (sym << 2));
    acc |= (<u64>(c & 0xffffff)) << nb;
    nb += c >> 24;
    if (sym >= 16) {
      acc |= (<u64>(item >> 8)) << nb;
      nb += sym == 16 ? 2 : sym == 17 ? 3 : 7;
    }
    store<u64>(o, acc);
    const f = nb & ~7;
    o += f >> 3;
    acc >>= f;
    nb -= f;
  }

  return writeSequences(data, n, seqsAt, nseq, o, acc, nb);
}

/**
 * The block's sequences after its header (bits `acc`, `nb` of them, not yet stored at o): literals
 * straight from the page, then each match; then the end of block. Returns the end.
 */
function writeSequences(data: usize, n: usize, seqs: usize, ns: usize, o: usize, acc: u64, nb: u32): usize {
  const codes = CODES_AT;
  const dataEnd = data + n;
  const seqEnd = seqs + (ns << 3);
  let src = data;
  let q = seqs;
  // Cursors rather than counts: fewer values live across the loops, so they stay in registers.
  while (true) {
    const last = q == seqEnd;
    const end = last ? dataEnd : src + <usize>load<u32>(q);
    // Four literals (≤ 56 bits: codes are limited to 14) per flush: < 8 bits wait between flushes.
    while (src + 4 <= end) {
      // Byte loads, and the code (low half) and its length (top byte) read apart: fewer
      // instructions than shifting them out of words. Pairs first, then the four: shorter
      // dependency chains than one literal after another.
      const a0 = codes + ((<usize>load<u8>(src)) << 2);
      const a1 = codes + ((<usize>load<u8>(src, 1)) << 2);
      const a2 = codes + ((<usize>load<u8>(src, 2)) << 2);
      const a3 = codes + ((<usize>load<u8>(src, 3)) << 2);
      const l0 = <u32>load<u8>(a0, 3);
      const l2 = <u32>load<u8>(a2, 3);
      const l01 = l0 + <u32>load<u8>(a1, 3);
      const p01 = (<u32>load<u16>(a0)) | ((<u32>load<u16>(a1)) << l0);
      const p23 = (<u32>load<u16>(a2)) | ((<u32>load<u16>(a3)) << l2);
      acc |= ((<u64>p01) | ((<u64>p23) << l01)) << nb;
      nb += l01 + l2 + <u32>load<u8>(a3, 3);
      store<u64>(o, acc);
      const f = nb & ~7;
      o += f >> 3;
      acc >>= f;
      nb -= f;
      src += 4;
    }
    {
      // The last 0–3 without branches (their count varies from one sequence to the next): the
      // bytes past them are read (the page is followed by other data) but given no bits.
      const r = <u32>(end - src);
      const v = load<u32>(src);
      const c0 = load<u32>(codes + ((<usize>(v & 0xff)) << 2));
      const c1 = load<u32>(codes + ((<usize>((v >> 8) & 0xff)) << 2));
      const c2 = load<u32>(codes + ((<usize>((v >> 16) & 0xff)) << 2));
      const l0 = select<u32>(c0 >> 24, 0, r > 0);
      const l1 = select<u32>(c1 >> 24, 0, r > 1);
      const l2 = select<u32>(c2 >> 24, 0, r > 2);
      const b0 = select<u32>(c0 & 0xffff, 0, r > 0);
      const b1 = select<u32>(c1 & 0xffff, 0, r > 1);
      const b2 = select<u32>(c2 & 0xffff, 0, r > 2);
      const l01 = l0 + l1;
      acc |= ((<u64>(b0 | (b1 << l0))) | ((<u64>b2) << l01)) << nb;
      nb += l01 + l2;
      store<u64>(o, acc);
      const f = nb & ~7;
      o += f >> 3;
      acc >>= f;
      nb -= f;
    }
    if (last) break;
    const m = load<u32>(q, 4);
    q += 8;
    const len = <usize>((m >> 16) & 0x1ff);
    const d = m & 0xffff;
    const lc = load<u32>(LEN_BITS_AT + (len << 2));
    acc |= (<u64>(lc & 0xffffff)) << nb;
    nb += lc >> 24;
    const ds = m >> 25;
    const dc = load<u32>(codes + ((288 + <usize>ds) << 2));
    const dl = dc >> 24;
    acc |= (<u64>((dc & 0xffff) | ((d - <u32>unchecked(DIST_BASE[ds])) << dl))) << nb;
    nb += dl + (ds < 4 ? 0 : (ds - 2) >> 1);
    store<u64>(o, acc);
    const f = nb & ~7;
    o += f >> 3;
    acc >>= f;
    nb -= f;
    src = end + len;
  }
  // End of block, then pad to a byte.
  const eob = load<u32>(codes + (256 << 2));
  acc |= (<u64>(eob & 0xffff)) << nb;
  nb += eob >> 24;
  store<u64>(o, acc);
  return o + ((nb + 7) >> 3);
}

function countUsed(freq: usize, n: u32): u32 {
  let c: u32 = 0;
  for (let s: u32 = 0; s < n; s++) if (load<u32>(freq + ((<usize>s) << 2)) != 0) c++;
  return c;
}

/**
 * Code-length items for `total` lengths at `lens` (RFC 1951 §3.2.7: 16 repeats the previous length
 * 3–6 times, 17 and 18 give 3–10 and 11–138 zeros), written as `symbol | extra << 8`; counts the
 * symbols into `freq`. Returns the item count.
 */
function rleLengths(lens: usize, total: u32, out: usize, freq: usize): usize {
  let k: usize = 0;
  let i: u32 = 0;
  while (i < total) {
    const l = <u32>load<u8>(lens + i);
    let run: u32 = 1;
    while (i + run < total && <u32>load<u8>(lens + i + run) == l) run++;
    i += run;
    if (l == 0) {
      while (run >= 11) {
        const r = run < 138 ? run : 138;
        k = rleItem(out, freq, k, 18 | ((r - 11) << 8));
        run -= r;
      }
      if (run >= 3) {
        k = rleItem(out, freq, k, 17 | ((run - 3) << 8));
        run = 0;
      }
    } else {
      k = rleItem(out, freq, k, l);
      run--;
      while (run >= 3) {
        const r = run < 6 ? run : 6;
        k = rleItem(out, freq, k, 16 | ((r - 3) << 8));
        run -= r;
      }
    }
    while (run > 0) {
      k = rleItem(out, freq, k, l);
      run--;
    }
  }
  return k;
}

function rleItem(out: usize, freq: usize, k: usize, item: u32): usize {
  store<u32>(out + (k << 2), item);
  const f = freq + ((<usize>(item & 0xff)) << 2);
  store<u32>(f, load<u32>(f) + 1);
  return k + 1;
}

/**
 * A length-limited canonical Huffman code for `n` symbols with counts at `freq`: lengths (u8) to
 * `lens`, bit-reversed codes (u32) to `codes`. Lengths from Moffat and Katajainen's in-place
 * minimum-redundancy algorithm over the symbols sorted by (count, symbol), then limited to
 * `limit` bits by moving leaves down (the fix-up miniz uses), so ties break the same way everywhere.
 * Each code is stored with its length in the top byte.
 */
function buildCode(freq: usize, n: u32, lens: usize, codes: usize, limit: u32): void {
  const w = work;
  const keys = w + SORT;
  // Counts above 2^23 (only pages over 8 MB) are scaled down so that count << 9 | symbol fits.
  let top: u32 = 0;
  for (let s: u32 = 0; s < n; s++) top |= load<u32>(freq + ((<usize>s) << 2));
  const shift: u32 = top >> 23 != 0 ? 32 - <u32>clz(top) - 23 : 0;
  // Symbols of count 1 (the literals the sample missed get that count) first: in symbol order they
  // are already sorted, and below every other key (unless counts are scaled down).
  let used: u32 = 0;
  for (let s: u32 = 0; s < n; s++) {
    store<u8>(lens + s, 0);
    if (shift == 0 && load<u32>(freq + ((<usize>s) << 2)) == 1) {
      store<u32>(keys + ((<usize>used) << 2), (1 << 9) | s);
      used++;
    }
  }
  const ones = used;
  for (let s: u32 = 0; s < n; s++) {
    let f = load<u32>(freq + ((<usize>s) << 2));
    if (shift == 0 && f == 1) continue;
    if (f != 0 && shift != 0) f = f >> shift != 0 ? f >> shift : 1;
    if (f != 0) {
      store<u32>(keys + ((<usize>used) << 2), (f << 9) | s);
      used++;
    }
  }
  // Shell sort (Ciura's gaps) of the rest: distinct keys, so any sort gives the same order;
  // insertion sort alone took ~10 µs per page once every byte value had a count.
  const rest = keys + ((<usize>ones) << 2);
  const m = used - ones;
  for (let g: u32 = 0; g < 6; g++) {
    const gap = <u32>unchecked(SHELL_GAPS[g]);
    for (let a: u32 = gap; a < m; a++) {
      const v = load<u32>(rest + ((<usize>a) << 2));
      let b = a;
      while (b >= gap && load<u32>(rest + ((<usize>(b - gap)) << 2)) > v) {
        store<u32>(rest + ((<usize>b) << 2), load<u32>(rest + ((<usize>(b - gap)) << 2)));
        b -= gap;
      }
      store<u32>(rest + ((<usize>b) << 2), v);
    }
  }
  const counts = w + COUNTS;
  memory.fill(counts, 0, 32 * 4);
  if (used == 1) {
    store<u8>(lens + (load<u32>(keys) & 511), 1);
  } else if (used > 1) {
    for (let a: u32 = 0; a < used; a++) {
      const k = load<u32>(keys + ((<usize>a) << 2));
      store<u32>(w + SYMS + ((<usize>a) << 2), k & 511);
      store<u32>(keys + ((<usize>a) << 2), k >> 9);
    }
    minimumRedundancy(keys, used);
    // keys now hold code lengths of the sorted symbols (ascending counts → descending lengths).
    for (let a: u32 = 0; a < used; a++) {
      const l = load<u32>(keys + ((<usize>a) << 2));
      const c = counts + ((<usize>(l > 31 ? 31 : l)) << 2);
      store<u32>(c, load<u32>(c) + 1);
    }
    // Limit: fold longer codes into `limit`, then restore the Kraft sum (miniz's enforce_max_code_size).
    for (let l: u32 = limit + 1; l < 32; l++) {
      store<u32>(
        counts + ((<usize>limit) << 2),
        load<u32>(counts + ((<usize>limit) << 2)) + load<u32>(counts + ((<usize>l) << 2)),
      );
      store<u32>(counts + ((<usize>l) << 2), 0);
    }
    let kraft: u32 = 0;
    for (let l: u32 = limit; l > 0; l--) kraft += load<u32>(counts + ((<usize>l) << 2)) << (limit - l);
    while (kraft != (<u32>1) << limit) {
      store<u32>(counts + ((<usize>limit) << 2), load<u32>(counts + ((<usize>limit) << 2)) - 1);
      for (let l: u32 = limit - 1; l > 0; l--) {
        const c = load<u32>(counts + ((<usize>l) << 2));
        if (c != 0) {
          store<u32>(counts + ((<usize>l) << 2), c - 1);
          store<u32>(counts + ((<usize>(l + 1)) << 2), load<u32>(counts + ((<usize>(l + 1)) << 2)) + 2);
          break;
        }
      }
      kraft--;
    }
    // Shortest codes to the most frequent symbols (the end of the sorted order).
    let j = used;
    for (let l: u32 = 1; l <= limit; l++) {
      for (let c = load<u32>(counts + ((<usize>l) << 2)); c > 0; c--) {
        j--;
        store<u8>(lens + load<u32>(w + SYMS + ((<usize>j) << 2)), <u8>l);
      }
    }
  }
  // Canonical codes (§3.2.2), bit-reversed for the LSB-first stream.
  memory.fill(counts, 0, 32 * 4);
  for (let s: u32 = 0; s < n; s++) {
    const c = counts + ((<usize>load<u8>(lens + s)) << 2);
    store<u32>(c, load<u32>(c) + 1);
  }
  store<u32>(counts, 0);
  let code: u32 = 0;
  const next = w + COUNTS + 16 * 4; // next_code[1..15] in the upper half of COUNTS
  for (let l: u32 = 1; l < 16; l++) {
    code = (code + load<u32>(counts + ((<usize>(l - 1)) << 2))) << 1;
    store<u32>(next + ((<usize>l) << 2), code);
  }
  for (let s: u32 = 0; s < n; s++) {
    const l = <u32>load<u8>(lens + s);
    if (l == 0) continue;
    const c = load<u32>(next + ((<usize>l) << 2));
    store<u32>(next + ((<usize>l) << 2), c + 1);
    // Bit reversal of the 16-bit code by swaps of halves, quarters, …, then shifted to l bits.
    let r = ((c & 0x5555) << 1) | ((c >> 1) & 0x5555);
    r = ((r & 0x3333) << 2) | ((r >> 2) & 0x3333);
    r = ((r & 0x0f0f) << 4) | ((r >> 4) & 0x0f0f);
    r = ((r & 0x00ff) << 8) | ((r >> 8) & 0x00ff);
    store<u32>(codes + ((<usize>s) << 2), (r >> (16 - l)) | (l << 24));
  }
}

/**
 * Moffat and Katajainen, "In-place calculation of minimum-redundancy codes" (1995), as in miniz:
 * `a` holds n ≥ 2 counts in ascending order and receives the code length of each.
 */
function minimumRedundancy(a: usize, n: u32): void {
  // Phase 1: build the tree in place; parents' weights, then parent indices.
  store<u32>(a, load<u32>(a) + load<u32>(a + 4));
  let root: u32 = 0;
  let leaf: u32 = 2;
  for (let next: u32 = 1; next < n - 1; next++) {
    const pn = a + ((<usize>next) << 2);
    if (leaf >= n || load<u32>(a + ((<usize>root) << 2)) < load<u32>(a + ((<usize>leaf) << 2))) {
      store<u32>(pn, load<u32>(a + ((<usize>root) << 2)));
      store<u32>(a + ((<usize>root) << 2), next);
      root++;
    } else {
      store<u32>(pn, load<u32>(a + ((<usize>leaf) << 2)));
      leaf++;
    }
    if (
      leaf >= n ||
      (root < next && load<u32>(a + ((<usize>root) << 2)) < load<u32>(a + ((<usize>leaf) << 2)))
    ) {
      store<u32>(pn, load<u32>(pn) + load<u32>(a + ((<usize>root) << 2)));
      store<u32>(a + ((<usize>root) << 2), next);
      root++;
    } else {
      store<u32>(pn, load<u32>(pn) + load<u32>(a + ((<usize>leaf) << 2)));
      leaf++;
    }
  }
  // Phase 2: depths of the internal nodes.
  store<u32>(a + ((<usize>(n - 2)) << 2), 0);
  for (let next = <i32>n - 3; next >= 0; next--) {
    const pn = a + ((<usize>next) << 2);
    store<u32>(pn, load<u32>(a + ((<usize>load<u32>(pn)) << 2)) + 1);
  }
  // Phase 3: depths of the leaves.
  let avail: i32 = 1;
  let usedHere: i32 = 0;
  let depth: u32 = 0;
  let r = <i32>n - 2;
  let next = <i32>n - 1;
  while (avail > 0) {
    while (r >= 0 && load<u32>(a + ((<usize>r) << 2)) == depth) {
      usedHere++;
      r--;
    }
    while (avail > usedHere) {
      store<u32>(a + ((<usize>next) << 2), depth);
      next--;
      avail--;
    }
    avail = 2 * usedHere;
    depth++;
    usedHere = 0;
  }
}
