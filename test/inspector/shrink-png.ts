/**
 * Re-encodes a screenshot as an indexed PNG of at most 256 colours (the most used colours at 5 bits
 * per channel, each pixel mapped to the nearest), so the documentation's screenshots stay small. For
 * docs tooling only (the browser test, with GLYPHFOLD_SCREENSHOTS=1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { decode, encode } from 'fast-png';

export function shrinkPng(file: string): void {
  const png = decode(readFileSync(file));
  const { width, height, channels } = png;
  const data = png.data as Uint8Array;
  const n = width * height;
  const bin = (i: number): number =>
    ((data[i * channels]! >> 3) << 10) |
    ((data[i * channels + 1]! >> 3) << 5) |
    (data[i * channels + 2]! >> 3);
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const b = bin(i);
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 256);
  const palette = top.map(
    ([b]) =>
      [((b >> 10) & 31) * 8.226, ((b >> 5) & 31) * 8.226, (b & 31) * 8.226].map(Math.round) as [
        number,
        number,
        number,
      ],
  );
  const nearest = new Map<number, number>();
  const index = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = bin(i);
    let k = nearest.get(b);
    if (k === undefined) {
      const r = ((b >> 10) & 31) * 8.226;
      const g = ((b >> 5) & 31) * 8.226;
      const bl = (b & 31) * 8.226;
      let best = Infinity;
      k = 0;
      palette.forEach(([pr, pg, pb], j) => {
        const d = (pr - r) ** 2 + (pg - g) ** 2 + (pb - bl) ** 2;
        if (d < best) {
          best = d;
          k = j;
        }
      });
      nearest.set(b, k);
    }
    index[i] = k;
  }
  writeFileSync(file, encode({ width, height, data: index, depth: 8, channels: 1, palette }));
}
