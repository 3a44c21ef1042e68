import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBase64, imageSize, imageSizeBase64 } from '../../src/transcript/image-size.js';
import { encodePng } from '../../scripts/lib/png.js';

const image = (name: string): Uint8Array =>
  readFileSync(join(import.meta.dirname, '../fixtures/images', name));

describe('image header sizes', () => {
  it('reads real PNG, JPEG, GIF and WebP files (CPython test images, 16×16)', () => {
    expect(imageSize(image('python.png'))).toEqual({ mediaType: 'image/png', width: 16, height: 16 });
    expect(imageSize(image('python.jpg'))).toEqual({ mediaType: 'image/jpeg', width: 16, height: 16 });
    expect(imageSize(image('python.gif'))).toEqual({ mediaType: 'image/gif', width: 16, height: 16 });
    expect(imageSize(image('python.webp'))).toEqual({ mediaType: 'image/webp', width: 16, height: 16 });
  });

  it('tells width from height in PNG', () => {
    const png = encodePng(301, 7, () => [0, 0, 0]);
    expect(imageSize(png)).toEqual({ mediaType: 'image/png', width: 301, height: 7 });
    expect(imageSizeBase64(png.toString('base64'))).toEqual({
      mediaType: 'image/png',
      width: 301,
      height: 7,
    });
  });

  it('finds the JPEG frame header after an APPn segment and a DQT (ITU T.81 B.2.2)', () => {
    const app1 = [0xff, 0xe1, 0x01, 0x02, ...new Array<number>(256).fill(0x45)];
    const dqt = [0xff, 0xdb, 0x00, 0x05, 1, 2, 3];
    const sof2 = [0xff, 0xc2, 0x00, 0x11, 8, 0x01, 0xdd, 0x02, 0xd0, 3]; // progressive, 477 high, 720 wide
    const jpeg = Uint8Array.from([0xff, 0xd8, ...app1, ...dqt, ...sof2, ...new Array<number>(12).fill(0)]);
    expect(imageSize(jpeg)).toEqual({ mediaType: 'image/jpeg', width: 720, height: 477 });
    expect(imageSizeBase64(Buffer.from(jpeg).toString('base64'))).toEqual({
      mediaType: 'image/jpeg',
      width: 720,
      height: 477,
    });
  });

  it('reads GIF little-endian sizes and the three WebP bitstreams', () => {
    const gif = Uint8Array.from([...Buffer.from('GIF89a'), 0x2c, 0x01, 0x0a, 0x00]);
    expect(imageSize(gif)).toEqual({ mediaType: 'image/gif', width: 300, height: 10 });
    const riff = (chunk: string, body: number[]): Uint8Array =>
      Uint8Array.from([
        ...Buffer.from('RIFF'),
        0,
        0,
        0,
        0,
        ...Buffer.from('WEBP'),
        ...Buffer.from(chunk),
        0,
        0,
        0,
        0,
        ...body,
        ...new Array<number>(16).fill(0),
      ]);
    // VP8 (lossy): frame tag, start code 9d 01 2a, then 14-bit width and height.
    expect(imageSize(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0x90, 0x01, 0x2c, 0x01]))).toEqual({
      mediaType: 'image/webp',
      width: 400,
      height: 300,
    });
    // VP8L: signature 0x2f, then width-1 and height-1 in 14 bits each: 640×480 → 639, 479.
    const w = 639;
    const h = 479;
    const bits = w | (h << 14);
    expect(
      imageSize(
        riff('VP8L', [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >>> 24) & 0xff]),
      ),
    ).toEqual({
      mediaType: 'image/webp',
      width: 640,
      height: 480,
    });
    // VP8X: flags, reserved, then canvas width-1 and height-1 as 24-bit LE: 1920×1080.
    expect(imageSize(riff('VP8X', [0x10, 0, 0, 0, 0x7f, 0x07, 0x00, 0x37, 0x04, 0x00]))).toEqual({
      mediaType: 'image/webp',
      width: 1920,
      height: 1080,
    });
  });

  it('returns undefined for unknown or cut-short data', () => {
    expect(imageSize(Uint8Array.from([1, 2, 3]))).toBeUndefined();
    expect(imageSize(image('python.png').subarray(0, 20))).toBeUndefined();
    expect(imageSize(Buffer.from('%PDF-1.7 ............................'))).toBeUndefined();
  });

  it('decodes base64 like Node does and names a bad character', () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff);
    const b64 = Buffer.from(bytes).toString('base64');
    expect(decodeBase64(b64)).toEqual(bytes);
    expect(decodeBase64(b64, 10)).toEqual(bytes.subarray(0, 10));
    expect(decodeBase64(Buffer.from(bytes).toString('base64url'))).toEqual(bytes);
    expect(() => decodeBase64('AAAA*AAA')).toThrow(/found "\*" at offset 4/);
  });
});
