/**
 * A tiny PNG encoder for tests, independent of src/render/png.ts: it writes every filter type of PNG
 * spec §9.2 (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth), greyscale 1/8 bits, RGB and RGBA 8 bits, so
 * the decoder's un-filtering runs on every path (fast-png and our encoder write filter 0 only).
 * Deflate is node:zlib; chunks and CRCs are built here.
 */
import { deflateSync } from 'node:zlib';

export type ColourFormat = 'grey1' | 'grey8' | 'rgb' | 'rgba';

/** Pixels as one value per pixel, 0 = black … 255 = white (grey1 keeps only the top bit). */
export interface GreyImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 as PNG §5.5 defines it, bit by bit from a one-table loop (not the slicing-by-8 under test). */
export function crc(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)));
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Colour values of pixel `i` for a format: `tint(i, c)` in 0..255 lets a test give each channel its
 * own value (so a decoder that mixes channels up sees different numbers), while the pixel stays on
 * the same side of the half-intensity threshold.
 */
function rawLine(img: GreyImage, y: number, format: ColourFormat, tint: (i: number, c: number) => number) {
  const { width } = img;
  if (format === 'grey1') {
    const line = new Uint8Array(Math.ceil(width / 8));
    for (let x = 0; x < width; x++) if (img.pixels[y * width + x]! >= 128) line[x >> 3]! |= 0x80 >> (x & 7);
    return line;
  }
  const channels = format === 'grey8' ? 1 : format === 'rgb' ? 3 : 4;
  const line = new Uint8Array(width * channels);
  for (let x = 0; x < width; x++) {
    const i = y * width + x;
    const white = img.pixels[i]! >= 128;
    for (let c = 0; c < channels; c++) {
      // Alpha is not colour: the decoder ignores it, so it gets any value.
      const t = tint(i, c);
      line[x * channels + c] = c === 3 ? t : white ? 128 + (t & 127) : t & 127;
    }
  }
  return line;
}

/**
 * Encodes `img` as a PNG in `format`, each scanline with `filters[y % filters.length]`. `tint` varies
 * the channel values inside each pixel's half of the range (default: a fixed pseudo-random spread).
 */
export function encodeTestPng(
  img: GreyImage,
  format: ColourFormat,
  filters: readonly number[],
  tint: (i: number, c: number) => number = (i, c) => ((i + 1) * 2654435761 + c * 40503) >>> 24,
): Uint8Array {
  const bpp = format === 'rgba' ? 4 : format === 'rgb' ? 3 : 1; // §9.2: bytes per complete pixel, ≥ 1
  const lines: Uint8Array[] = [];
  let prev: Uint8Array | undefined;
  for (let y = 0; y < img.height; y++) {
    const line = rawLine(img, y, format, tint);
    const up = prev ?? new Uint8Array(line.length);
    const filter = filters[y % filters.length]!;
    const out = new Uint8Array(line.length + 1);
    out[0] = filter;
    for (let i = 0; i < line.length; i++) {
      const a = i >= bpp ? line[i - bpp]! : 0;
      const b = up[i]!;
      const c = i >= bpp ? up[i - bpp]! : 0;
      const predictor =
        filter === 0 ? 0 : filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : paeth(a, b, c);
      out[i + 1] = (line[i]! - predictor) & 0xff;
    }
    lines.push(out);
    prev = line;
  }
  const raw = Buffer.concat(lines);
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, img.width);
  view.setUint32(4, img.height);
  ihdr[8] = format === 'grey1' ? 1 : 8;
  ihdr[9] = format === 'grey1' || format === 'grey8' ? 0 : format === 'rgb' ? 2 : 6;
  const signature = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
  // Split the data in two IDAT chunks so the decoder must join them (§11.2.4).
  const z = deflateSync(raw);
  const half = z.length >> 1;
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('tEXt', new TextEncoder().encode('Comment\0ignored ancillary chunk')),
    chunk('IDAT', z.subarray(0, half)),
    chunk('IDAT', z.subarray(half)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

/** Rebuilds the chunk at byte `at` with a correct CRC after a test changed its data. */
export function fixCrc(png: Uint8Array, at: number): void {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const length = view.getUint32(at);
  view.setUint32(at + 8 + length, crc(png.subarray(at + 4, at + 8 + length)));
}

/** 1-bit scanlines with a filter byte per row (what renderScanlines gives) → one grey value per pixel. */
export function fromScanlines(page: { width: number; height: number; scanlines: Uint8Array }): GreyImage {
  const stride = Math.ceil(page.width / 8) + 1;
  const pixels = new Uint8Array(page.width * page.height);
  for (let y = 0; y < page.height; y++) {
    for (let x = 0; x < page.width; x++) {
      const bit = (page.scanlines[y * stride + 1 + (x >> 3)]! >> (7 - (x & 7))) & 1;
      pixels[y * page.width + x] = bit ? 255 : 0;
    }
  }
  return { width: page.width, height: page.height, pixels };
}
