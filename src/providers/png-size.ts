/**
 * An upper bound on the bytes of a 1-bit greyscale PNG page, so page shapes can respect per-image and
 * per-request byte limits before anything is rendered. The bound assumes deflate found nothing to
 * compress (stored blocks), which no real page reaches: text pages deflate ~10×.
 */

/** Stored deflate blocks hold at most 65,535 bytes each, with a 5-byte header (RFC 1951 §3.2.4). */
const STORED_BLOCK = 65_535;
/** The smallest IDAT chunk size an encoder is assumed to use; each chunk costs 12 bytes (PNG §5.3). */
const MIN_IDAT_CHUNK = 8_192;

/** Worst-case file size of a W×H 1-bit greyscale PNG (signature, IHDR, IDAT chunks, IEND). */
export function pngBytesMax(width: number, height: number): number {
  // Scanlines: one filter byte plus ⌈W/8⌉ packed pixels (PNG §7.2, bit depth 1).
  const raw = height * (1 + Math.ceil(width / 8));
  // zlib: 2-byte header + stored blocks + 4-byte Adler-32 (RFC 1950 §2.2).
  const zlib = 2 + raw + 5 * Math.max(1, Math.ceil(raw / STORED_BLOCK)) + 4;
  const idat = zlib + 12 * Math.max(1, Math.ceil(zlib / MIN_IDAT_CHUNK));
  const signature = 8;
  const ihdr = 12 + 13;
  const iend = 12;
  return signature + ihdr + idat + iend;
}

/** Size of `bytes` once base64-encoded (what Anthropic, Bedrock and inline Gemini data count). */
export function base64Size(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}
