/**
 * The worker-thread pool (src/render-node): real worker threads, the same bytes as render() in page
 * order, and errors that name their page.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { englishProse } from '../../src/cli/prose.js';
import { decode, normalize, render } from '../../src/render/index.js';
import { createRenderPool } from '../../src/render-node/index.js';
import { chunkBounds } from '../../src/render-node/pool.js';

describe('render pool', () => {
  const pool = createRenderPool({ size: 3 });
  afterAll(() => pool.close());

  it('gives the pages render() gives, in order, byte for byte, for both compressions and layouts', async () => {
    // Prose, then CJK (glyphs the learnt literal code never saw: those pages build their own).
    let seed = 3;
    const cjk = Array.from({ length: 6_000 }, () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return String.fromCharCode(0x4e00 + ((seed >>> 8) % 2000));
    }).join('');
    const text = englishProse(40_000) + '\n\tcafé 😀 \u0000 ─│\n' + 'code();\n'.repeat(300) + cjk;
    for (const options of [
      { shape: { width: 400, height: 200 }, cell: '4x6' as const },
      { shape: { width: 336, height: 400 }, variant: 'gf-6x10+flow', compression: 'fastest' as const },
      { shape: { width: 500, height: 120 }, variant: '5x8+c1+r1+s2' },
    ]) {
      const serial = await render(text, { ...options, engine: 'wasm' });
      const seen: number[] = [];
      const parallel = await pool.render(text, { ...options, onPage: (_, i) => void seen.push(i) });
      expect(parallel.pages.length).toBeGreaterThan(3);
      expect(parallel.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
        serial.pages.map((p) => Buffer.from(p.png).toString('base64')),
      );
      expect(parallel.pages.map((p) => p.chars)).toEqual(serial.pages.map((p) => p.chars));
      expect([parallel.chars, parallel.escapes, parallel.bytes]).toEqual([
        serial.chars,
        serial.escapes,
        serial.bytes,
      ]);
      expect(seen).toEqual(parallel.pages.map((_, i) => i));
      expect(
        decode(
          parallel.pages.map((p) => p.png),
          { variant: options.variant ?? options.cell },
        ),
      ).toBe(normalize(text));
    }
  });

  it('serves concurrent renders and texts with fewer pages than workers', async () => {
    const texts = ['one page', 'two\n'.repeat(40), '', englishProse(20_000)];
    const shape = { width: 300, height: 100 };
    const results = await Promise.all(texts.map((t) => pool.render(t, { shape })));
    for (const [i, t] of texts.entries()) {
      const serial = await render(t, { shape, engine: 'wasm' });
      expect(results[i]!.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
        serial.pages.map((p) => Buffer.from(p.png).toString('base64')),
      );
    }
  });

  it('starts workers from page states: lone surrogates, CRLF, flow, many renders at once, a limit mid-way', async () => {
    const two = createRenderPool({ size: 2 });
    try {
      const texts = [
        englishProse(30_000).replaceAll('. ', '.\r\n\t'),
        englishProse(20_000) + '\ud800 lone \udc00' + 'x'.repeat(3000) + '\n',
        ('a'.repeat(300) + '\u0001😀  \n').repeat(60),
      ];
      const runs: Promise<void>[] = [];
      for (const text of texts)
        for (const variant of ['4x6', '4x6+flow'])
          runs.push(
            (async () => {
              const options = { shape: { width: 160, height: 60 }, variant };
              const [a, b] = await Promise.all([
                two.render(text, options),
                render(text, { ...options, engine: 'wasm' }),
              ]);
              expect(a.pages.length).toBeGreaterThan(10);
              expect(a.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
                b.pages.map((p) => Buffer.from(p.png).toString('base64')),
              );
              expect([a.chars, a.escapes]).toEqual([b.chars, b.escapes]);
            })(),
          );
      await Promise.all(runs);
      // Texts of 0–2 pages, many times: the lead may finish (or post an empty first chunk) before the
      // count is published.
      const small = ['', 'one page', 'x\n'.repeat(13)];
      const want = await Promise.all(
        small.map((t) => render(t, { shape: { width: 160, height: 60 }, engine: 'wasm' })),
      );
      for (let round = 0; round < 40; round++) {
        const got = await Promise.all(small.map((t) => two.render(t, { shape: { width: 160, height: 60 } })));
        expect(got.map((r) => r.pages.length)).toEqual(want.map((r) => r.pages.length));
      }
      // The lead renders before the count is in: a limit still fails with render()'s error, and the
      // pool goes on.
      const big = englishProse(50_000);
      const shape = { width: 160, height: 60 };
      await expect(two.render(big, { shape, maxPages: 5 })).rejects.toThrow(
        /render: the text needs more than 5 pages of 160x60; pass a larger maxPages/,
      );
      await expect(render(big, { shape, maxPages: 5 })).rejects.toThrow(/more than 5 pages/);
      expect((await two.render('after', { shape })).pages).toHaveLength(1);
    } finally {
      await two.close();
    }
  });

  it("gives the same pages with and without onPage at once: chunks posted as they come, or with each worker's done", async () => {
    const two = createRenderPool({ size: 2 });
    try {
      const text = englishProse(60_000);
      const options = { shape: { width: 200, height: 60 }, cell: '4x6' as const };
      const seen: number[] = [];
      const [early, late, serial] = await Promise.all([
        // An onPage that yields: later chunks come in while it waits, and are delivered in order.
        two.render(text, {
          ...options,
          onPage: async (_, i) => {
            seen.push(i);
            if (i % 7 === 0) await new Promise((r) => setImmediate(r));
          },
        }),
        two.render(text, options),
        render(text, { ...options, engine: 'wasm' }),
      ]);
      expect(serial.pages.length).toBeGreaterThan(40);
      const want = serial.pages.map((p) => Buffer.from(p.png).toString('base64'));
      expect(early.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(want);
      expect(late.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(want);
      expect(seen).toEqual(serial.pages.map((_, i) => i));
      expect([late.chars, late.escapes, late.bytes]).toEqual([serial.chars, serial.escapes, serial.bytes]);
    } finally {
      await two.close();
    }
  });

  it("renders a share on the calling thread with callerRenders: same bytes, pages in order, render()'s limit error", async () => {
    const caller = createRenderPool({ callerRenders: true, size: 2 });
    try {
      expect([caller.size, caller.callerRenders]).toEqual([2, true]);
      expect(createRenderPool({ callerRenders: true }).size).toBe(Math.max(1, availableParallelism() - 1));
      const text = englishProse(60_000) + '\ud800 lone \r\n' + englishProse(5_000);
      const seen: number[] = [];
      for (const options of [
        { shape: { width: 200, height: 60 }, cell: '4x6' as const },
        { shape: { width: 160, height: 90 }, variant: 'gf-6x10+flow', compression: 'fastest' as const },
      ]) {
        const [a, b, serial] = await Promise.all([
          caller.render(text, { ...options, onPage: (_, i) => void seen.push(i) }),
          caller.render(englishProse(30_000), options),
          render(text, { ...options, engine: 'wasm' }),
        ]);
        expect(a.pages.length).toBeGreaterThan(40);
        expect(a.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
          serial.pages.map((p) => Buffer.from(p.png).toString('base64')),
        );
        expect([a.chars, a.escapes, a.bytes]).toEqual([serial.chars, serial.escapes, serial.bytes]);
        expect(seen.splice(0)).toEqual(serial.pages.map((_, i) => i));
        const b2 = await render(englishProse(30_000), { ...options, engine: 'wasm' });
        expect(b.pages.map((p) => p.png.length)).toEqual(b2.pages.map((p) => p.png.length));
      }
      // Texts smaller than a chunk per thread: the calling thread renders them whole.
      for (const t of ['', 'one page', 'x\n'.repeat(13)]) {
        const want = await render(t, { shape: { width: 160, height: 60 }, engine: 'wasm' });
        const got = await caller.render(t, { shape: { width: 160, height: 60 } });
        expect(got.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
          want.pages.map((p) => Buffer.from(p.png).toString('base64')),
        );
      }
      // A limit: the calling thread or the counting worker, whichever gets there first, fails the render
      // with render()'s error, or lets a text of exactly maxPages pages through; the pool goes on.
      const shape = { width: 160, height: 60 };
      const exact = (await render(englishProse(4_000), { shape, engine: 'wasm' })).pages.length;
      expect(exact).toBeGreaterThan(2);
      for (let round = 0; round < 10; round++) {
        await expect(caller.render(englishProse(50_000), { shape, maxPages: 5 })).rejects.toThrow(
          /render: the text needs more than 5 pages of 160x60; pass a larger maxPages/,
        );
        expect((await caller.render(englishProse(4_000), { shape, maxPages: exact })).pages).toHaveLength(
          exact,
        );
        await expect(caller.render(englishProse(4_000), { shape, maxPages: exact - 1 })).rejects.toThrow(
          /more than \d+ pages/,
        );
      }
      expect((await caller.render('after', { shape })).pages).toHaveLength(1);
    } finally {
      await caller.close();
    }
  });

  it('with callerRenders never waits on a worker: the calling thread renders the pages no worker takes', async () => {
    // The worker of this pool dies as it starts (the heap limit of the test below), before it counts
    // the pages: a calling thread that waited for the count would hang. It renders them all instead
    // and publishes them itself.
    const caller = createRenderPool({
      callerRenders: true,
      size: 1,
      resourceLimits: { maxOldGenerationSizeMb: 4, maxYoungGenerationSizeMb: 1 },
    });
    try {
      const shape = { width: 400, height: 200 };
      for (const text of [englishProse(60_000), '', 'one page']) {
        const [got, want] = [
          await caller.render(text, { shape }),
          await render(text, { shape, engine: 'wasm' }),
        ];
        expect(got.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
          want.pages.map((p) => Buffer.from(p.png).toString('base64')),
        );
      }
      await expect(caller.render(englishProse(60_000), { shape, maxPages: 3 })).rejects.toThrow(
        /more than 3 pages/,
      );
    } finally {
      await caller.close();
    }
  });

  it('cuts pages into chunks that cover them once, large first and single pages last', () => {
    const b = [...chunkBounds(200, 2)];
    expect(b[0]).toBe(0);
    expect(b.at(-1)).toBe(200);
    const sizes = b.slice(1).map((x, i) => x - b[i]!);
    expect(sizes[0]).toBe(50); // a quarter of the pages: half a worker's share
    expect(sizes.every((n, i) => n >= 1 && (i === 0 || n <= sizes[i - 1]!))).toBe(true);
    expect(sizes.at(-1)).toBe(1);
    expect(sizes.length).toBeLessThan(30);
    expect([...chunkBounds(1, 4)]).toEqual([0, 1]);
    // A first chunk that already holds the pages its worker rendered before the count.
    const c = [...chunkBounds(200, 2, 70)];
    expect(c.slice(0, 2)).toEqual([0, 70]);
    expect(c.at(-1)).toBe(200);
    expect([...chunkBounds(3, 2, 9)]).toEqual([0, 3]);
  });

  it('renders on a warmed pool the pages render() gives, however many chunks each worker takes', async () => {
    const warm = createRenderPool({ size: 2 });
    try {
      await warm.warm();
      const text = englishProse(60_000);
      const options = { shape: { width: 200, height: 60 }, cell: '4x6' as const };
      const [a, b] = await Promise.all([
        warm.render(text, options),
        render(text, { ...options, engine: 'wasm' }),
      ]);
      expect(a.pages.length).toBeGreaterThan(40);
      expect(a.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
        b.pages.map((p) => Buffer.from(p.png).toString('base64')),
      );
    } finally {
      await warm.close();
    }
    await expect(warm.warm()).rejects.toThrow(/closed/);
  });

  it('reuses its text buffer across texts of other lengths and encodings; chunk buffers hold only their pages', async () => {
    const two = createRenderPool({ size: 2 });
    try {
      // Long ASCII, then shorter multi-byte text (3 bytes per unit at most, in the buffer the first
      // left), then ASCII again in both compressions: each byte for byte, nothing of the one before.
      const texts = [
        englishProse(80_000),
        'é—😀 ' + 'ünïcödé ─│ '.repeat(2_000) + englishProse(5_000),
        englishProse(30_000),
      ];
      for (const text of texts) {
        for (const compression of ['default', 'fastest'] as const) {
          const options = { shape: { width: 300, height: 90 }, cell: '4x6' as const, compression };
          const [a, b] = [
            await two.render(text, options),
            await render(text, { ...options, engine: 'wasm' }),
          ];
          expect(a.pages.length).toBeGreaterThan(8);
          expect(a.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
            b.pages.map((p) => Buffer.from(p.png).toString('base64')),
          );
          // Every byte of a chunk's buffer outside its pages is zero (no bytes of an earlier render).
          const spans = new Map<ArrayBufferLike, [number, number][]>();
          for (const p of a.pages) {
            const list = spans.get(p.png.buffer) ?? [];
            list.push([p.png.byteOffset, p.png.byteOffset + p.png.length]);
            spans.set(p.png.buffer, list);
          }
          for (const [buffer, list] of spans) {
            const bytes = new Uint8Array(buffer);
            const inPage = new Uint8Array(bytes.length);
            for (const [from, to] of list) inPage.fill(1, from, to);
            expect(bytes.findIndex((v, i) => v !== 0 && inPage[i] === 0)).toBe(-1);
          }
        }
      }
    } finally {
      await two.close();
    }
  });

  it('rejects bad input like render() does, and a page limit', async () => {
    await expect(pool.render('x', { shape: { width: 7, height: 100 } })).rejects.toThrow(/at least 2x2/);
    await expect(
      pool.render(42 as unknown as string, { shape: { width: 100, height: 100 } }),
    ).rejects.toThrow(/expected text to be a string, found number/);
    await expect(
      pool.render('x\n'.repeat(100), { shape: { width: 100, height: 12 }, maxPages: 3 }),
    ).rejects.toThrow(/more than 3 pages/);
    expect(() => createRenderPool({ size: 0 })).toThrow(/size must be an integer ≥ 1, found 0/);
  });

  it('drops the chunks of a render that failed on its limit (delivering them again recursed until the stack ran out)', () => {
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/render/fixtures/pool-limit.ts'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.stderr).not.toMatch(/Maximum call stack|PromiseRejectCallback/);
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ failed: 20, pages: 1 });
  });

  it('names the pages a worker held when it dies mid-chunk, and renders again after', async () => {
    const two = createRenderPool({ size: 2 });
    type Internals = { workers: Map<{ terminate(): Promise<number> }, { held: Int32Array }> };
    const threads = (two as unknown as Internals).workers;
    try {
      const text = englishProse(12_000_000);
      const options = { shape: { width: 400, height: 200 }, cell: '4x6' as const };
      const failed = two.render(text, options);
      // From the start, without blocking this thread: as soon as a worker holds a chunk other than the
      // first, end that thread as a crash would. The render is long (~4,400 pages, ~0.1 s on idle
      // cores) so it is still going whatever the load, and the lead cannot take every page into its
      // first chunk before a late counting thread publishes the chunks (3,000,000 characters were
      // short enough for that to happen under load).
      let killed: number | undefined;
      for (let spins = 0; killed === undefined && spins < 1_000_000; spins++) {
        for (const [worker, t] of threads) {
          if (t.held[0]! >= 0 && t.held[1]! >= 1) {
            killed = t.held[1]!;
            await worker.terminate();
            break;
          }
        }
        if (killed === undefined) await new Promise((r) => setImmediate(r));
      }
      const error = await failed.then(
        () => undefined,
        (e: Error) => e,
      );
      expect(killed, `a worker was caught holding a chunk (${String(error)})`).toBeDefined();
      expect(error?.message).toMatch(/^render pool: worker failed on pages \d+–\d+: exited with code/);
      const [from, to] = error!.message
        .match(/pages (\d+)–(\d+)/)!
        .slice(1)
        .map(Number);
      expect(from).toBeGreaterThan(1); // a chunk after the first, which starts at page 1
      expect(to).toBeGreaterThanOrEqual(from!);
      // The pool starts a new thread in its place: the next render is whole and byte for byte.
      const small = englishProse(20_000);
      const again = await two.render(small, options);
      const serial = await render(small, { ...options, engine: 'wasm' });
      expect(again.pages.map((p) => Buffer.from(p.png).toString('base64'))).toEqual(
        serial.pages.map((p) => Buffer.from(p.png).toString('base64')),
      );
      expect(threads.size).toBe(2);
    } finally {
      await two.close();
    }
  });

  it('says what a failing worker held, and refuses work once closed', async () => {
    // A worker with this heap dies as it starts (ERR_WORKER_OUT_OF_MEMORY), before it counts the pages
    // (it is the only worker, so it counts first); a worker that dies on a chunk names its pages.
    const small = createRenderPool({
      size: 1,
      resourceLimits: { maxOldGenerationSizeMb: 4, maxYoungGenerationSizeMb: 1 },
    });
    const text = 'a line of text that fills the page\n'.repeat(600_000);
    await expect(small.render(text, { shape: { width: 1568, height: 784 } })).rejects.toThrow(
      /render pool: worker failed before counting the pages: .*memory limit/,
    );
    await small.close();
    await expect(small.render('x', { shape: { width: 100, height: 100 } })).rejects.toThrow(/closed/);
  });
});
