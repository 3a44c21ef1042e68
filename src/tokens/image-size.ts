/**
 * Pixel size of an image from its header, for images whose item does not carry width and height.
 * Reads only the first bytes: PNG IHDR (PNG spec 11.2.2), GIF logical screen descriptor, JPEG SOFn
 * segments, WebP VP8/VP8L/VP8X headers.
 */
import type { ImageData } from '../transcript/items.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes the first `max` bytes of base64 text without Node's Buffer (views stay edge-safe). */
function head(data: string, max: number): Uint8Array {
  const chars = Math.min(data.length, Math.ceil(max / 3) * 4);
  const out = new Uint8Array(Math.floor((chars * 3) / 4));
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < chars; i++) {
    const v = B64.indexOf(data[i]!);
    if (v < 0) continue; // '=' padding or whitespace
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, n);
}

/** Width and height from the item, else from the header; undefined when neither says. */
export function imageSize(image: ImageData): { width: number; height: number } | undefined {
  if (image.width !== undefined && image.height !== undefined)
    return { width: image.width, height: image.height };
  const b = head(image.data, 64 * 1024);
  const u16be = (i: number): number => (b[i]! << 8) | b[i + 1]!;
  const u32be = (i: number): number =>
    ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
  const u16le = (i: number): number => b[i]! | (b[i + 1]! << 8);
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47)
    return { width: u32be(16), height: u32be(20) };
  if (b.length >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46)
    return { width: u16le(6), height: u16le(8) };
  if (
    b.length >= 30 &&
    b[0] === 0x52 &&
    b[8] === 0x57 &&
    b[12] === 0x56 &&
    b[13] === 0x50 &&
    b[14] === 0x38
  ) {
    const kind = String.fromCharCode(b[15]!);
    if (kind === ' ') return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    if (kind === 'L') {
      const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
    }
    if (kind === 'X')
      return {
        width: (b[24]! | (b[25]! << 8) | (b[26]! << 16)) + 1,
        height: (b[27]! | (b[28]! << 8) | (b[29]! << 16)) + 1,
      };
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      // SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { width: u16be(i + 7), height: u16be(i + 5) };
      i += 2 + u16be(i + 2);
    }
  }
  return undefined;
}
