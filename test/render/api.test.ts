import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { decode as fastPngDecode, encode as fastPngEncode } from 'fast-png';
import { describe, expect, it } from 'vitest';
import {
  availableDeflatePaths,
  cellSize,
  countPages,
  decode,
  normalize,
  render,
  type RenderOptions,
} from '../../src/render/index.js';
import { crc32 } from '../../src/render/crc32.js';
import { encodePngSync } from '../../src/render/png.js';
import { renderScanlines } from '../../src/render/reference.js';

const text =
  'The quick brown fox\tjumps over the lazy dog.\r\nΣ Ж ├──┤ é ß 😀 \u0007 done.\n' + 'long '.repeat(80);
const shape = { width: 200, height: 60 };

describe('render', () => {
  it('returns pages, totals and PNGs that decode back to normalize(text)', async () => {
    const result = await render(text, { shape });
    expect(result.pages.length).toBeGreaterThan(1);
    expect(result.chars).toBe([...normalize(text)].length);
    expect(result.escapes).toBe(2); // 😀 and BEL
    expect(result.bytes).toBe(result.pages.reduce((n, p) => n + p.png.length, 0));
    expect(result.pages.every((p) => p.width === 200 && p.height === 60)).toBe(true);
    expect(countPages(text, { shape })).toEqual({
      pages: result.pages.length,
      chars: result.chars,
      escapes: 2,
    });
    expect(decode(result.pages.map((p) => p.png))).toBe(normalize(text));
  });

  it('gives byte-identical PNGs from the WASM and the TS engine, also when renders overlap', async () => {
    for (const cell of ['4x6', '5x8', '6x10'] as const) {
      const options: RenderOptions = { shape, cell, deflate: 'zlib' };
      const [wasm, ts, wasm2] = await Promise.all([
        render(text, { ...options, engine: 'wasm' }),
        render(text, { ...options, engine: 'ts' }),
        render(text.slice(3), { ...options, engine: 'wasm' }),
      ]);
      expect(wasm.pages.map((p) => p.png)).toEqual(ts.pages.map((p) => p.png));
      expect({ ...wasm, pages: wasm.pages.length }).toEqual({ ...ts, pages: ts.pages.length });
      expect(
        decode(
          wasm2.pages.map((p) => p.png),
          { cell },
        ),
      ).toBe(normalize(text.slice(3)));
      const auto = await render(text, options);
      expect(auto.pages.map((p) => p.png)).toEqual(ts.pages.map((p) => p.png));
    }
  });

  it("'fastest' on the WASM engine (the core's stored encoder) gives the bytes of the TS engine + png.ts", async () => {
    const inputs = [
      text,
      'Snapshot pages hold the middle of a history.\n\n'.repeat(900),
      '\u0000\ud800 é\t😀\r\n' + 'x'.repeat(5000),
      'a',
    ];
    const cases: Omit<RenderOptions, 'compression'>[] = [
      { shape: { width: 1568, height: 784 } },
      { shape, cell: '5x8', scale: 2 },
      { shape: { width: 301, height: 97 }, cell: '6x10', scale: 1 },
      { shape: { width: 2000, height: 2000 }, cell: '4x6', scale: 3 }, // more than one stored block
    ];
    for (const input of inputs) {
      for (const c of cases) {
        const wasm = await render(input, { ...c, compression: 'fastest', engine: 'wasm' });
        for (const deflate of availableDeflatePaths()) {
          const ts = await render(input, { ...c, compression: 'fastest', engine: 'ts', deflate });
          expect(wasm.pages.length).toBe(ts.pages.length);
          wasm.pages.forEach((p, i) => expect(Buffer.compare(p.png, ts.pages[i]!.png)).toBe(0));
          expect(wasm.bytes).toBe(ts.bytes);
        }
        expect(
          decode(
            wasm.pages.map((p) => p.png),
            c,
          ),
        ).toBe(normalize(input));
      }
    }
  });

  it('falls back to the TS reference where WebAssembly is missing (node --jitless), same bytes', async () => {
    const dist = new URL('../../dist/render/index.js', import.meta.url);
    expect(existsSync(dist), 'dist/render/index.js is missing: run `npm run build:ts`').toBe(true);
    const script = `
      const r = await import(${JSON.stringify(dist.href)});
      const out = await r.render(process.argv[1], { shape: { width: 200, height: 60 }, deflate: 'zlib' });
      const fastest = await r.render(process.argv[1], { shape: { width: 200, height: 60 }, compression: 'fastest' });
      let forced = '';
      try { await r.render('x', { shape: { width: 200, height: 60 }, engine: 'wasm' }); } catch (e) { forced = e.message; }
      console.log(JSON.stringify({ wasm: typeof WebAssembly, forced, pngs: out.pages.map((p) => Buffer.from(p.png).toString('base64')), fastest: fastest.pages.map((p) => Buffer.from(p.png).toString('base64')) }));`;
    const child = spawnSync(process.execPath, ['--jitless', '--input-type=module', '-e', script, text], {
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const result = JSON.parse(child.stdout) as {
      wasm: string;
      forced: string;
      pngs: string[];
      fastest: string[];
    };
    expect(result.wasm).toBe('undefined');
    expect(result.forced).toBe('the WASM engine is not available in this runtime');
    const ts = await render(text, { shape, deflate: 'zlib', engine: 'ts' });
    expect(result.pngs).toEqual(ts.pages.map((p) => Buffer.from(p.png).toString('base64')));
    // 'fastest' without WebAssembly (TS engine, JS stored encoder) = the core's in-memory encoder.
    const core = await render(text, { shape, compression: 'fastest', engine: 'wasm' });
    expect(result.fastest).toEqual(core.pages.map((p) => Buffer.from(p.png).toString('base64')));
  });

  it('gives the same bytes for the same input on every deflate path, for both compressions', async () => {
    for (const deflate of availableDeflatePaths()) {
      for (const compression of ['default', 'fastest'] as const) {
        const options: RenderOptions = { shape, deflate, compression };
        const a = await render(text, options);
        const b = await render(text, options);
        expect(b.pages.map((p) => p.png)).toEqual(a.pages.map((p) => p.png));
        expect(decode(a.pages.map((p) => p.png))).toBe(normalize(text));
      }
    }
    expect(availableDeflatePaths()).toEqual(['zlib', 'stream', 'fflate']);
  });

  it('writes PNGs an independent decoder reads as 1-bit greyscale with the §5 scanlines', () => {
    const [page] = renderScanlines('Hi', { shape: { width: 13, height: 12 } });
    const png = encodePngSync(page!, { path: 'zlib' });
    const image = fastPngDecode(png);
    expect({
      width: image.width,
      height: image.height,
      depth: image.depth,
      channels: image.channels,
    }).toEqual({
      width: 13,
      height: 12,
      depth: 1,
      channels: 1,
    });
    // IDAT data is exactly the zlib stream of the scanlines; every chunk CRC verifies.
    const idatLength = new DataView(png.buffer, png.byteOffset).getUint32(33);
    expect(inflateSync(png.subarray(41, 41 + idatLength))).toEqual(Buffer.from(page!.scanlines));
    for (let at = 8; at < png.length;) {
      const length = new DataView(png.buffer, png.byteOffset).getUint32(at);
      expect(crc32(png, at + 4, at + 8 + length)).toBe(
        new DataView(png.buffer, png.byteOffset).getUint32(at + 8 + length),
      );
      at += 12 + length;
    }
  });

  it('decodes pages from another encoder that uses filter types 1–4 and 8-bit pixels', async () => {
    const result = await render(text, { shape, cell: '5x8', scale: 2 });
    const reencoded = result.pages.map((p) => {
      const image = fastPngDecode(p.png);
      // Expand to 8-bit greyscale; fast-png then filters rows with its own choice of filter type.
      const grey = new Uint8Array(image.width * image.height);
      for (let y = 0; y < image.height; y++) {
        for (let x = 0; x < image.width; x++) {
          const byte = image.data[y * Math.ceil(image.width / 8) + (x >> 3)]!;
          grey[y * image.width + x] = (byte >> (7 - (x & 7))) & 1 ? 255 : 0;
        }
      }
      return fastPngEncode({ width: image.width, height: image.height, data: grey, depth: 8, channels: 1 });
    });
    expect(decode(reencoded, { cell: '5x8', scale: 2 })).toBe(normalize(text));
  });

  it('decodes RGB pages (what screenshot tools write)', async () => {
    const result = await render(text, { shape });
    const rgb = result.pages.map((p) => {
      const image = fastPngDecode(p.png);
      const data = new Uint8Array(image.width * image.height * 3);
      for (let y = 0; y < image.height; y++) {
        for (let x = 0; x < image.width; x++) {
          const byte = image.data[y * Math.ceil(image.width / 8) + (x >> 3)]!;
          const at = (y * image.width + x) * 3;
          data.fill((byte >> (7 - (x & 7))) & 1 ? 255 : 0, at, at + 3);
        }
      }
      return fastPngEncode({ width: image.width, height: image.height, data, depth: 8, channels: 3 });
    });
    expect(decode(rgb)).toBe(normalize(text));
  });

  it('names what is wrong with bad input', async () => {
    await expect(render(42 as unknown as string, { shape })).rejects.toThrow(TypeError);
    await expect(render(42 as unknown as string, { shape })).rejects.toThrow(
      /expected text to be a string, found number/,
    );
    await expect(render('x', { shape: { width: 7, height: 60 } })).rejects.toThrow(
      /shape 7x60 holds 1x10 cells of 4x6 at scale 1 .*expected at least 2x2, i.e. at least 8x12 pixels/,
    );
    await expect(render('x', { shape: { width: 70000, height: 60 } })).rejects.toThrow(
      /shape.width must be an integer from 1 to 65535 pixels, found 70000/,
    );
    await expect(render('x', { shape: { width: 60000, height: 60000 } })).rejects.toThrow(
      /more than the 67108864/,
    );
    await expect(render('x', { shape: { width: 1.5, height: 60 } })).rejects.toThrow(/found 1.5/);
    await expect(render('x', { shape, cell: '7x7' as '4x6' })).rejects.toThrow(
      /unknown cell '7x7': expected one of 4x6, 5x7, 5x8, 6x9, 6x10, 6x12, 6x13, spleen-5x8, .*, gf-6x10/,
    );
    await expect(render('x', { shape, scale: 5 })).rejects.toThrow(
      /scale must be an integer from 1 to 4, found 5/,
    );
    await expect(render('x', { shape, compression: 'max' as 'default' })).rejects.toThrow(
      /compression must be one of default, fastest, found max/,
    );
    await expect(render('x', undefined as unknown as RenderOptions)).rejects.toThrow(TypeError);
    expect(() => cellSize('9x9' as '4x6')).toThrow(RangeError);
    expect(() => countPages('x', undefined as unknown as RenderOptions)).toThrow(
      /countPages: expected options \{ shape, cell\?, scale\? \}, found undefined/,
    );
    expect(() => countPages(null as unknown as string, { shape })).toThrow(
      /expected text to be a string, found null/,
    );
    expect(() => decode([new Uint8Array([1, 2, 3])])).toThrow(/page 1: not a PNG/);
  });

  it('refuses to decode with the wrong cell, naming the page and cell', async () => {
    const result = await render('Hello', { shape });
    expect(() =>
      decode(
        result.pages.map((p) => p.png),
        { cell: '5x8' },
      ),
    ).toThrow(/page 1, row 1, column 1: the cell matches no 5x8 glyph/);
  });
});

// A fixed input with prose, code, escapes and a wrap. Hashes pinned after looking at the pages (see
// docs/render.md); they change only if the font, the layout or the zlib output changes.
const GOLDEN_TEXT =
  'glyphfold golden page\n\tfunction add(a, b) { return a + b; } // tab-indented\n' +
  'Ünïcödé: Σ Ж ├─┤ ½ → 😀 \u0000\n' +
  'A line long enough to wrap at least once on this page, so the continuation mark is drawn. '.repeat(2);

describe('golden hashes: scanlines and PNG bytes (fflate path, pure JS, the same on every machine)', () => {
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  it.each([
    [
      '4x6',
      1,
      '27dc9df631270decf84fc178dc59a3128e9a590b98442f2019e5295c8562ac22',
      'a9d30755a59b7c641fa9182adb5e825dbda72d1db71d72f8ea5fdf192fcd2f44',
    ],
    [
      '5x8',
      1,
      'ac759828e061ecb75814575e16a016f502b5f1268c1604d0a4482cfcb3bb3b32',
      '57eda7f62a00b42f64b5c4c15f604a95e74c0548f3fc42a437de782b26a2fdf3',
    ],
    [
      '6x10',
      1,
      'ed32ea789b55206c13317c5425cf7624a02e0e6c151a18f86dc4e6fd2a46bce6',
      'e70eff1a0df68d4b7e31ae70517def672f9210bfa669e633712607352d6fb9ac',
    ],
    [
      '4x6',
      2,
      'b969a0d280e8b5141e4e35d5628bae1e945038663766ea4f17ab5bc4d6694870',
      '10adb6550efa5924016cc8399238f6b6f24dcf08a3de0e6df1a33a894d417600',
    ],
  ] as const)('%s at scale %i', async (cell, scale, scanlineHash, pngHash) => {
    const options = { shape: { width: 320, height: 120 * scale }, cell, scale };
    // Copy each page while the generator is on it: the buffer is wiped when it moves on (spreading the
    // generator first would hash a blank page and pin nothing).
    const pages = Array.from(renderScanlines(GOLDEN_TEXT, options), (p) => p.scanlines.slice());
    expect(pages).toHaveLength(1);
    expect(pages[0]!.some((b, i) => i % (1 + (320 * scale) / 8) !== 0 && b !== 0xff)).toBe(true);
    expect(sha(pages[0]!)).toBe(scanlineHash);
    const result = await render(GOLDEN_TEXT, { ...options, deflate: 'fflate' });
    expect(sha(result.pages[0]!.png)).toBe(pngHash);
  });
});
