/**
 * zlib inflate for `decode` (RFC 1950 wrapper, RFC 1951 deflate). Node's native zlib does the work
 * where the runtime offers it; elsewhere the small decoder below does (canonical Huffman decoding as
 * in zlib's contrib/puff). It replaced fflate here so that importing `glyphfold/render` — which
 * re-exports the synchronous `decode` — parses no deflate library on a cold start.
 */
import { nativeZlib } from './native-zlib.js';
import { adler32 } from './stored.js';

// RFC 1951 §3.2.5: base lengths and distances of the length and distance codes, and their extra bits.
const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
  227, 258,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
  6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA = [
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];
// RFC 1951 §3.2.7: order of the code length code lengths.
const CLEN_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A canonical Huffman code: how many codes of each length, and the symbols in code order. */
interface Huffman {
  count: Uint16Array;
  symbol: Uint16Array;
}

function huffman(lengths: Uint8Array, what: string): Huffman {
  const count = new Uint16Array(16);
  for (const l of lengths) count[l]!++;
  let left = 1;
  for (let len = 1; len < 16; len++) {
    left = (left << 1) - count[len]!;
    if (left < 0) throw new RangeError(`inflate: over-subscribed ${what} code`);
  }
  const offs = new Uint16Array(16);
  for (let len = 1; len < 15; len++) offs[len + 1] = offs[len]! + count[len]!;
  const symbol = new Uint16Array(lengths.length);
  for (let s = 0; s < lengths.length; s++) if (lengths[s] !== 0) symbol[offs[lengths[s]!]!++] = s;
  return { count, symbol };
}

let fixed: { lit: Huffman; dist: Huffman } | undefined;

function fixedCodes(): { lit: Huffman; dist: Huffman } {
  if (!fixed) {
    const l = new Uint8Array(288);
    l.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
    fixed = { lit: huffman(l, 'fixed literal'), dist: huffman(new Uint8Array(30).fill(5), 'fixed distance') };
  }
  return fixed;
}

class Inflater {
  private pos: number;
  private bitBuf = 0;
  private bitCount = 0;
  out: Uint8Array;
  length = 0;

  constructor(
    private readonly src: Uint8Array,
    start: number,
    sizeHint: number,
    private readonly max: number,
  ) {
    this.pos = start;
    // Deflate expands at most 1032:1, so a larger hint (a size declared by a hostile header) is wasted.
    this.out = new Uint8Array(Math.max(1024, Math.min(sizeHint, max, src.length * 1032 + 1024)));
  }

  private fail(what: string): never {
    throw new RangeError(`inflate: ${what} (input byte ${this.pos} of ${this.src.length})`);
  }

  private bits(n: number): number {
    let v = this.bitBuf;
    while (this.bitCount < n) {
      if (this.pos >= this.src.length) this.fail('unexpected end of the deflate stream');
      v |= this.src[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    this.bitBuf = v >>> n;
    this.bitCount -= n;
    return v & ((1 << n) - 1);
  }

  private decode(h: Huffman): number {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len < 16; len++) {
      code |= this.bits(1);
      const count = h.count[len]!;
      if (code - first < count) return h.symbol[index + code - first]!;
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    return this.fail('invalid Huffman code');
  }

  private room(n: number): void {
    if (this.length + n <= this.out.length) return;
    if (this.length + n > this.max) this.fail(`output exceeds the ${this.max} bytes expected`);
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.length + n));
    grown.set(this.out.subarray(0, this.length));
    this.out = grown;
  }

  /** Inflates blocks up to the final one; returns the input offset after it (byte-aligned). */
  run(): number {
    let last = 0;
    while (!last) {
      last = this.bits(1);
      const type = this.bits(2);
      if (type === 0) this.stored();
      else if (type === 1) this.codes(fixedCodes().lit, fixedCodes().dist);
      else if (type === 2) this.dynamic();
      else this.fail('invalid block type 3');
    }
    this.bitBuf = 0;
    this.bitCount = 0;
    return this.pos;
  }

  private stored(): void {
    this.bitBuf = 0; // RFC 1951 §3.2.4: skip to the byte boundary
    this.bitCount = 0;
    const s = this.src;
    if (this.pos + 4 > s.length) this.fail('unexpected end in a stored block header');
    const len = s[this.pos]! | (s[this.pos + 1]! << 8);
    const nlen = s[this.pos + 2]! | (s[this.pos + 3]! << 8);
    if ((len ^ 0xffff) !== nlen) this.fail('stored block LEN and NLEN disagree');
    this.pos += 4;
    if (this.pos + len > s.length) this.fail('unexpected end in a stored block');
    this.room(len);
    this.out.set(s.subarray(this.pos, this.pos + len), this.length);
    this.length += len;
    this.pos += len;
  }

  private dynamic(): void {
    const nlen = this.bits(5) + 257;
    const ndist = this.bits(5) + 1;
    const ncode = this.bits(4) + 4;
    if (nlen > 286 || ndist > 30) this.fail('too many length or distance codes');
    const clen = new Uint8Array(19);
    for (let i = 0; i < ncode; i++) clen[CLEN_ORDER[i]!] = this.bits(3);
    const lencode = huffman(clen, 'code length');
    const lengths = new Uint8Array(nlen + ndist);
    for (let i = 0; i < nlen + ndist;) {
      const sym = this.decode(lencode);
      if (sym < 16) {
        lengths[i++] = sym;
        continue;
      }
      let value = 0;
      let repeat: number;
      if (sym === 16) {
        if (i === 0) this.fail('repeat of a code length with no previous length');
        value = lengths[i - 1]!;
        repeat = 3 + this.bits(2);
      } else repeat = sym === 17 ? 3 + this.bits(3) : 11 + this.bits(7);
      if (i + repeat > nlen + ndist) this.fail('code lengths repeat past the end');
      lengths.fill(value, i, i + repeat);
      i += repeat;
    }
    if (lengths[256] === 0) this.fail('no end-of-block code');
    this.codes(
      huffman(lengths.subarray(0, nlen), 'literal/length'),
      huffman(lengths.subarray(nlen), 'distance'),
    );
  }

  private codes(lit: Huffman, dist: Huffman): void {
    for (;;) {
      let sym = this.decode(lit);
      if (sym < 256) {
        this.room(1);
        this.out[this.length++] = sym;
        continue;
      }
      if (sym === 256) return;
      sym -= 257;
      if (sym >= 29) this.fail(`invalid length code ${sym + 257}`);
      const len = LENGTH_BASE[sym]! + this.bits(LENGTH_EXTRA[sym]!);
      const dsym = this.decode(dist);
      if (dsym >= 30) this.fail(`invalid distance code ${dsym}`);
      const d = DIST_BASE[dsym]! + this.bits(DIST_EXTRA[dsym]!);
      if (d > this.length) this.fail(`distance ${d} reaches before the start of the output`);
      this.room(len);
      const out = this.out;
      let o = this.length;
      for (const end = o + len; o < end; o++) out[o] = out[o - d]!;
      this.length = o;
    }
  }
}

/** Inflates a zlib stream (RFC 1950) in pure JS, checking its header and Adler-32. */
export function inflateZlibPortable(
  data: Uint8Array,
  sizeHint = data.length * 4,
  maxOutput = Infinity,
): Uint8Array {
  if (data.length < 6)
    throw new RangeError(`inflate: a zlib stream has at least 6 bytes, found ${data.length}`);
  const cmf = data[0]!;
  const flg = data[1]!;
  if ((cmf & 0x0f) !== 8 || cmf >> 4 > 7 || (cmf * 256 + flg) % 31 !== 0 || flg & 0x20) {
    throw new RangeError(
      `inflate: not a zlib deflate stream without preset dictionary (header ${cmf.toString(16)} ${flg.toString(16)})`,
    );
  }
  const inflater = new Inflater(data, 2, sizeHint, maxOutput);
  const end = inflater.run();
  const out = inflater.out.subarray(0, inflater.length);
  if (end + 4 > data.length) throw new RangeError('inflate: the zlib stream ends before its Adler-32');
  const expected =
    ((data[end]! << 24) | (data[end + 1]! << 16) | (data[end + 2]! << 8) | data[end + 3]!) >>> 0;
  const actual = adler32(out);
  if (expected !== actual) {
    throw new RangeError(`inflate: Adler-32 expected ${expected.toString(16)}, found ${actual.toString(16)}`);
  }
  return out;
}

/**
 * Inflates a zlib stream: Node's zlib where present, else {@link inflateZlibPortable}. Output beyond
 * `maxOutput` bytes is a RangeError, raised as soon as it is produced (a decompression bomb never
 * reaches memory).
 */
export function inflateZlib(data: Uint8Array, sizeHint?: number, maxOutput = Infinity): Uint8Array {
  const zlib = nativeZlib();
  if (!zlib) return inflateZlibPortable(data, sizeHint, maxOutput);
  try {
    const out = zlib.inflateSync(data, Number.isFinite(maxOutput) ? { maxOutputLength: maxOutput } : {});
    return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
  } catch (err) {
    throw new RangeError(`inflate: ${(err as Error).message}`, { cause: err });
  }
}
