/**
 * Pixel size and media type of an image read from its header bytes, without decoding it.
 *
 * Importers need width and height for token estimates (providers price images by area). Only the
 * header is read: PNG IHDR (PNG spec §11.2.2), GIF logical screen descriptor (GIF89a §18), JPEG SOFn
 * segment (ITU T.81 §B.2.2), WebP VP8/VP8L/VP8X chunk headers (RFC 9649 §2.5–2.7). Pure; runs anywhere.
 */
import type { ImageData } from './items.js';

export interface ImageInfo {
  mediaType: ImageData['mediaType'];
  width: number;
  height: number;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = (() => {
  const table = new Int16Array(128).fill(-1);
  for (let i = 0; i < B64.length; i++) table[B64.charCodeAt(i)] = i;
  // URL-safe alphabet too: some harnesses store images that way.
  table['-'.charCodeAt(0)] = 62;
  table['_'.charCodeAt(0)] = 63;
  return table;
})();

/**
 * Decodes base64 (standard or URL-safe, whitespace ignored) into bytes; `maxBytes` stops early so a
 * header can be read from a multi-megabyte image without decoding the whole of it.
 * Throws a `RangeError` naming the offset of the first character outside the alphabet.
 */
export function decodeBase64(text: string, maxBytes = Infinity): Uint8Array {
  const out = new Uint8Array(Math.min(maxBytes, Math.floor((text.length * 3) / 4) + 3));
  let n = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < text.length && n < out.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 61 /* = */) break;
    if (c === 32 || c === 10 || c === 13 || c === 9) continue;
    const v = c < 128 ? (B64_INDEX[c] ?? -1) : -1;
    if (v < 0)
      throw new RangeError(
        `base64: expected [A-Za-z0-9+/=], found ${JSON.stringify(text[i])} at offset ${i}`,
      );
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, n);
}

const u16be = (b: Uint8Array, i: number): number => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const u16le = (b: Uint8Array, i: number): number => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, i: number): number => u16le(b, i) | ((b[i + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, i: number): number => u16be(b, i) * 65536 + u16be(b, i + 2);
const ascii = (b: Uint8Array, i: number, n: number): string =>
  String.fromCharCode(...b.subarray(i, Math.min(b.length, i + n)));

/** Reads media type and size from image bytes; `undefined` when the format is not recognised or the header is cut short. */
export function imageSize(bytes: Uint8Array): ImageInfo | undefined {
  // PNG: 8-byte signature, then IHDR must be the first chunk (§5.6): width, height as u32 BE.
  if (bytes.length >= 24 && u32be(bytes, 0) === 0x89504e47 && u32be(bytes, 4) === 0x0d0a1a0a) {
    if (ascii(bytes, 12, 4) !== 'IHDR') return undefined;
    return { mediaType: 'image/png', width: u32be(bytes, 16), height: u32be(bytes, 20) };
  }
  // GIF: "GIF87a"/"GIF89a", then logical screen width and height as u16 LE.
  if (bytes.length >= 10 && (ascii(bytes, 0, 6) === 'GIF87a' || ascii(bytes, 0, 6) === 'GIF89a')) {
    return { mediaType: 'image/gif', width: u16le(bytes, 6), height: u16le(bytes, 8) };
  }
  // JPEG: SOI, then marker segments until a start-of-frame (SOF0–SOF15 except DHT C4, JPG C8, DAC CC).
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let i = 2;
    while (i + 9 < bytes.length) {
      if (bytes[i] !== 0xff) return undefined;
      const marker = bytes[i + 1] ?? 0;
      if (marker === 0xff) {
        i++; // fill byte
        continue;
      }
      if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        i += 2; // standalone markers carry no length
        continue;
      }
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { mediaType: 'image/jpeg', height: u16be(bytes, i + 5), width: u16be(bytes, i + 7) };
      }
      i += 2 + u16be(bytes, i + 2);
    }
    return undefined;
  }
  // WebP: RIFF container with form type "WEBP"; the first chunk says which bitstream follows.
  if (bytes.length >= 30 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 4) === 'WEBP') {
    const chunk = ascii(bytes, 12, 4);
    if (chunk === 'VP8X') {
      return { mediaType: 'image/webp', width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
    }
    if (chunk === 'VP8L' && bytes[20] === 0x2f) {
      const b1 = bytes[21] ?? 0;
      const b2 = bytes[22] ?? 0;
      const b3 = bytes[23] ?? 0;
      const b4 = bytes[24] ?? 0;
      return {
        mediaType: 'image/webp',
        width: 1 + (((b2 & 0x3f) << 8) | b1),
        height: 1 + (((b4 & 0x0f) << 10) | (b3 << 2) | ((b2 & 0xc0) >> 6)),
      };
    }
    if (chunk === 'VP8 ' && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a) {
      return { mediaType: 'image/webp', width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
    }
    return undefined;
  }
  return undefined;
}

/**
 * `imageSize` on base64 data. Decodes only a prefix for PNG, GIF and WebP; JPEG headers can sit
 * after large EXIF segments, so JPEG falls back to decoding the whole image.
 */
export function imageSizeBase64(data: string): ImageInfo | undefined {
  const head = decodeBase64(data, 64);
  if (head[0] === 0xff && head[1] === 0xd8) return imageSize(decodeBase64(data));
  return imageSize(head);
}
