/** Base64 (RFC 4648 §4, with padding) without Node's Buffer, so the handler runs in edge runtimes. */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const PAD = 0x3d; // '='
const ascii = new TextDecoder();

/**
 * Encodes into ASCII bytes and decodes them once: the usual `btoa(String.fromCharCode(...bytes))`
 * builds a binary string first and was ~50× slower on page-sized PNGs (milliseconds per page).
 */
export function toBase64(bytes: Uint8Array): string {
  const n = bytes.length;
  const out = new Uint8Array(Math.ceil(n / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = CODES[v >>> 18]!;
    out[o++] = CODES[(v >>> 12) & 63]!;
    out[o++] = CODES[(v >>> 6) & 63]!;
    out[o++] = CODES[v & 63]!;
  }
  if (i < n) {
    const v = (bytes[i]! << 16) | ((i + 1 < n ? bytes[i + 1]! : 0) << 8);
    out[o++] = CODES[v >>> 18]!;
    out[o++] = CODES[(v >>> 12) & 63]!;
    out[o++] = i + 1 < n ? CODES[(v >>> 6) & 63]! : PAD;
    out[o] = PAD;
  }
  return ascii.decode(out);
}
