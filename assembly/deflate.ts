// A deflate encoder (RFC 1951) made for 1-bit text pages: one dynamic-Huffman block per page, greedy
// LZ77 whose candidates are the ones glyph rows repeat at — the byte before (runs of white or ink),
// the pixel row above (scaled or blank rows), the text row above (indentation, log prefixes, columns)
// — plus one hash-table probe for everything else (repeated words). Everything it reads is the page
// and tables it zeroes per page, and it does integer arithmetic only: the same scanlines give the same
// bytes on every runtime. Ideas and their sources are in docs/renderer.md §5 ("The core's deflate").

/** Work area layout (bytes from workPtr); see workBytes(). */
const HASH_BITS: u32 = 14;
const HEAD = 0; // u32[1 << HASH_BITS]: latest position of each 4-byte hash
const LIT_FREQ = HEAD + (4 << HASH_BITS); // u32[288] literal/length symbol counts
const DIST_FREQ = LIT_FREQ + 288 * 4; // u32[32]
const CL_FREQ = DIST_FREQ + 32 * 4; // u32[19]
const LENS = CL_FREQ + 20 * 4; // u8[288 + 32] code lengths (litlen, then dist)
const CODES = LENS + 320; // u32[288 + 32] bit-reversed codes
const CL_LENS = CODES + 320 * 4; // u8[20]
const CL_CODES = CL_LENS + 20; // u32[20]
const SORT = CL_CODES + 20 * 4; // u32[288] keys (freq << 9 | symbol), then counts, then lengths
const SYMS = SORT + 288 * 4; // u32[288] the symbols in sorted order
const COUNTS = SYMS + 288 * 4; // u32[32] codes per length; next codes in the upper half
const RLE = COUNTS + 32 * 4; // u32[320] code-length items (symbol | extra << 8)
const LEN_BITS = RLE + 320 * 4; // u32[259] per match length: code | extra bits << code length | bits << 24
const LEN_SYM = LEN_BITS + 259 * 4; // u8[259] length → symbol − 257 (static)
const DIST_SYM = LEN_SYM + 260; // u8[512] distance → symbol (zlib's dist_code layout, static)
const SEQS = DIST_SYM + 512; // u32 pairs: literals before a match, (length << 16 | distance)

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
// RFC 1951 §3.2.7: order of the code length code lengths.
const CL_ORDER: StaticArray<u8> = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

let work: usize = 0;
export let dbgLits: u32 = 0;
export let dbgMatches: u32 = 0;
export let dbgMatchBytes: u32 = 0;

/** Bytes of work area a page of `n` scanline bytes needs (at most one match per 4 bytes). */
export function workBytes(n: usize): usize {
  return <usize>SEQS + ((n >> 2) + 2) * 8;
}

/** Sets the work area and fills its static tables (once per prepare()). */
export function setDeflateWork(ptr: usize): void {
  work = ptr;
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

/** Length of the common prefix of a and b, known to be ≥ 4, up to `max`; 8 bytes per step (the
 *  loads may read past `max`, never past the page's padding, and the result is clamped). */
function extend(a: usize, b: usize, max: u32): u32 {
  let len: u32 = 4;
  while (len < max) {
    const x = load<u64>(a + len) ^ load<u64>(b + len);
    if (x != 0) {
      len += (<u32>ctz(x)) >> 3;
      break;
    }
    len += 8;
  }
  return len < max ? len : max;
}

/**
 * Deflates `n` bytes at `data` into `o` as one final dynamic-Huffman block and returns the end.
 * `rowDist` is the distance to the same pixel row of the text row above (stride × cell height).
 */
export function deflatePage(data: usize, n: usize, o: usize, stride: u32, rowDist: u32): usize {
  const w = work;
  memory.fill(w + HEAD, 0, 4 << HASH_BITS);
  memory.fill(w + LIT_FREQ, 0, 288 * 4 + 32 * 4 + 20 * 4);
  const seqs = w + SEQS;
  let ns: usize = 0; // sequences written
  let lit: u32 = 0; // literals since the last match
  let i: usize = 0;
  const last = n >= 4 ? n - 4 : 0; // last position a 4-byte match may start
  while (i < n) {
    if (i >= last || i == 0) {
      // Too close to the end (or nothing behind): literal.
      const b = <usize>load<u8>(data + i);
      store<u32>(w + LIT_FREQ + (b << 2), load<u32>(w + LIT_FREQ + (b << 2)) + 1);
      lit++;
      i++;
      continue;
    }
    const p = data + i;
    const cur = load<u32>(p);
    const rest = n - i;
    const max = rest < 258 ? <u32>rest : 258;
    let best: u32 = 0;
    let dist: u32 = 0;
    // The byte before: runs (white space, margins, solid ink).
    if (load<u32>(p - 1) == cur) {
      best = extend(p, p - 1, max);
      dist = 1;
    }
    // The pixel row above: blank rows, scaled rows.
    if (best < max && i >= <usize>stride && load<u32>(p - stride) == cur) {
      const l = extend(p, p - stride, max);
      if (l > best) {
        best = l;
        dist = stride;
      }
    }
    // The same pixel row of the text row above: indentation, aligned prefixes and columns.
    if (best < max && i >= <usize>rowDist && rowDist <= 32768 && load<u32>(p - rowDist) == cur) {
      const l = extend(p, p - rowDist, max);
      if (l > best) {
        best = l;
        dist = rowDist;
      }
    }
    // The latest earlier position with the same 4 bytes: repeated words and glyph runs.
    const h = w + HEAD + ((<usize>((cur * 0x9e3779b1) >> (32 - HASH_BITS))) << 2);
    const cand = <usize>load<u32>(h);
    store<u32>(h, <u32>i);
    if (best < max && cand < i && i - cand <= 32768 && load<u32>(data + cand) == cur) {
      const l = extend(p, data + cand, max);
      if (l > best) {
        best = l;
        dist = <u32>(i - cand);
      }
    }
    if (best >= 4) {
      store<u32>(seqs + (ns << 3), lit);
      store<u32>(seqs + (ns << 3) + 4, (best << 16) | dist);
      ns++;
      lit = 0;
      const ls = <usize>load<u8>(w + LEN_SYM + best);
      const lf = w + LIT_FREQ + ((257 + ls) << 2);
      store<u32>(lf, load<u32>(lf) + 1);
      const df = w + DIST_FREQ + ((<usize>distSym(dist)) << 2);
      store<u32>(df, load<u32>(df) + 1);
      i += best;
    } else {
      const b = <usize>(cur & 0xff);
      store<u32>(w + LIT_FREQ + (b << 2), load<u32>(w + LIT_FREQ + (b << 2)) + 1);
      lit++;
      i++;
    }
  }
  store<u32>(w + LIT_FREQ + (256 << 2), 1); // end of block
  dbgMatches = <u32>ns;
  dbgLits = 0;
  for (let k: usize = 0; k < ns; k++) {
    dbgLits += load<u32>(seqs + (k << 3));
    dbgMatchBytes += load<u32>(seqs + (k << 3) + 4) >> 16;
  }

  // Codes: at least two symbols in each alphabet, so every code is complete (some decoders insist).
  if (load<u32>(w + LIT_FREQ + (257 << 2)) == 0 && countUsed(w + LIT_FREQ, 286) < 2)
    store<u32>(w + LIT_FREQ + (257 << 2), 1);
  if (load<u32>(w + DIST_FREQ) == 0) store<u32>(w + DIST_FREQ, 1);
  if (countUsed(w + DIST_FREQ, 30) < 2) {
    if (load<u32>(w + DIST_FREQ + 4) == 0) store<u32>(w + DIST_FREQ + 4, 1);
  }
  buildCode(w + LIT_FREQ, 286, w + LENS, w + CODES, 15);
  buildCode(w + DIST_FREQ, 30, w + LENS + 288, w + CODES + 288 * 4, 15);
  let nlit: u32 = 286;
  while (nlit > 257 && load<u8>(w + LENS + nlit - 1) == 0) nlit--;
  let ndist: u32 = 30;
  while (ndist > 1 && load<u8>(w + LENS + 288 + ndist - 1) == 0) ndist--;

  // Code lengths of both alphabets as one sequence, run-length coded (§3.2.7).
  if (nlit < 288) memory.copy(w + LENS + nlit, w + LENS + 288, ndist); // contiguous for the RLE
  const total = nlit + ndist;
  const nrle = rleLengths(w + LENS, total, w + RLE, w + CL_FREQ);
  buildCode(w + CL_FREQ, 19, w + CL_LENS, w + CL_CODES, 7);
  if (nlit < 288) memory.copy(w + LENS + 288, w + LENS + nlit, ndist); // back in place
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

  // Per-length codes with their extra bits, so a match costs two table reads.
  const codes = w + CODES;
  const lens = w + LENS;
  for (let len: u32 = 3; len <= 258; len++) {
    const s = <u32>load<u8>(w + LEN_SYM + len);
    const sym = <usize>(257 + s);
    const c = load<u32>(codes + (sym << 2));
    const cl = c >> 24;
    const extra = len - <u32>unchecked(LENGTH_BASE[s]);
    store<u32>(
      w + LEN_BITS + ((<usize>len) << 2),
      (c & 0xffff) | (extra << cl) | ((cl + <u32>unchecked(LENGTH_EXTRA[s])) << 24),
    );
  }

  // The sequences: literals straight from the page, then the match.
  let src = data;
  for (let k: usize = 0; k <= ns; k++) {
    const nl = k < ns ? load<u32>(seqs + (k << 3)) : <u32>(data + n - src);
    // Two literals (≤ 30 bits) per flush: the accumulator holds < 8 bits between flushes.
    let j: u32 = 0;
    for (; j + 2 <= nl; j += 2) {
      const c0 = load<u32>(codes + ((<usize>load<u8>(src + j)) << 2));
      const c1 = load<u32>(codes + ((<usize>load<u8>(src + j + 1)) << 2));
      acc |= (<u64>(c0 & 0xffff)) << nb;
      nb += c0 >> 24;
      acc |= (<u64>(c1 & 0xffff)) << nb;
      nb += c1 >> 24;
      store<u64>(o, acc);
      const f = nb & ~7;
      o += f >> 3;
      acc >>= f;
      nb -= f;
    }
    if (j < nl) {
      const c0 = load<u32>(codes + ((<usize>load<u8>(src + j)) << 2));
      acc |= (<u64>(c0 & 0xffff)) << nb;
      nb += c0 >> 24;
      store<u64>(o, acc);
      const f = nb & ~7;
      o += f >> 3;
      acc >>= f;
      nb -= f;
    }
    src += nl;
    if (k == ns) break;
    const m = load<u32>(seqs + (k << 3) + 4);
    const len = <usize>(m >> 16);
    const d = m & 0xffff;
    const lc = load<u32>(w + LEN_BITS + (len << 2));
    acc |= (<u64>(lc & 0xffffff)) << nb;
    nb += lc >> 24;
    const ds = distSym(d);
    const dc = load<u32>(codes + ((288 + <usize>ds) << 2));
    const dl = dc >> 24;
    acc |= (<u64>((dc & 0xffff) | ((d - <u32>unchecked(DIST_BASE[ds])) << dl))) << nb;
    nb += dl + (ds < 4 ? 0 : (ds - 2) >> 1);
    store<u64>(o, acc);
    const f = nb & ~7;
    o += f >> 3;
    acc >>= f;
    nb -= f;
    src += len;
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
  let used: u32 = 0;
  for (let s: u32 = 0; s < n; s++) {
    store<u8>(lens + s, 0);
    let f = load<u32>(freq + ((<usize>s) << 2));
    if (f != 0 && shift != 0) f = f >> shift != 0 ? f >> shift : 1;
    if (f != 0) {
      store<u32>(keys + ((<usize>used) << 2), (f << 9) | s);
      used++;
    }
  }
  // Insertion sort: ≤ 286 keys, mostly few distinct.
  for (let a: u32 = 1; a < used; a++) {
    const v = load<u32>(keys + ((<usize>a) << 2));
    let b = a;
    while (b > 0 && load<u32>(keys + ((<usize>(b - 1)) << 2)) > v) {
      store<u32>(keys + ((<usize>b) << 2), load<u32>(keys + ((<usize>(b - 1)) << 2)));
      b--;
    }
    store<u32>(keys + ((<usize>b) << 2), v);
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
    let r: u32 = 0;
    for (let b: u32 = 0; b < l; b++) r |= ((c >> b) & 1) << (l - 1 - b);
    store<u32>(codes + ((<usize>s) << 2), r | (l << 24));
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
