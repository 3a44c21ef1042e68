/** Base64 without Node's Buffer, so the handler runs in edge runtimes. */

// btoa takes a "binary string"; building it in slices keeps String.fromCharCode under the
// engine's argument-count limit while avoiding one string concatenation per byte.
const SLICE = 0x8000;

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += SLICE) {
    binary += String.fromCharCode(...bytes.subarray(i, i + SLICE));
  }
  return btoa(binary);
}
