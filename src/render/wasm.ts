/**
 * The JS face of the WebAssembly core (assembly/, docs/render-wasm.md). It copies the atlas and the
 * text into the module's linear memory and hands out each page as a `Uint8Array` view over
 * `memory.buffer`: no per-glyph calls, no copies of page bytes. Plain `WebAssembly.instantiate` and
 * typed-array views are the whole binding, because only numbers cross the boundary.
 * Edge-safe: the module bytes are embedded (generated/wasm.ts), no fs, no fetch.
 */
import { fromBase64 } from './atlas.js';
import { atlasBytes } from './atlases.js';
import type { CellName } from './cells.js';
import { WASM_BASE64 } from './generated/wasm.js';
import { pageGeometry } from './geometry.js';
import type { Layout, Spacing } from './variant.js';

/** What the module exports (assembly/index.ts documents each one and who calls it). */
interface CoreExports {
  memory: { buffer: ArrayBuffer };
  atlasBuffer(length: number): number;
  loadAtlas(length: number, scale: number): number;
  prepare(width: number, height: number, capacity: number): number;
  begin(length: number, wide: number, layout: number): number;
  nextPage(draw: number): number;
  encodePage(mode: number): number;
  pngPointer(): number;
  pagePointer(): number;
  pageLength(): number;
  escapeCount(): number;
  charCount(): number;
  gridCols(): number;
  gridRows(): number;
  saveLayout(): number;
  restoreLayout(): number;
  layoutStateInts(): number;
  layoutStatePointer(): number;
}

/** Page geometry of one render: the shape in pixels, the cell and its integer scale. */
export interface WasmPageOptions {
  width: number;
  height: number;
  cell?: CellName;
  scale?: number;
  /** Blank font pixels right of and below every glyph (docs/renderer.md §2). */
  spacing?: Partial<Spacing>;
  /** 'lines' (default) or 'flow' (docs/renderer.md §4). */
  layout?: Layout;
}

/** One page: its PNG scanlines (docs/renderer.md §5) and the normalized characters it holds. */
export interface WasmPage {
  /**
   * `height × (1 + ceil(width / 8))` bytes, filter byte first on each line: exactly the input of the
   * IDAT zlib stream. A view over WASM memory, valid until the iterator moves to the next page (copy
   * it, or deflate it, before that).
   */
  scanlines: Uint8Array;
  /** Code points of the normalized text on this page, including the newlines ending its lines. */
  chars: number;
  /** Escaped code points whose escape starts on this page. */
  escapes: number;
  /**
   * This page as a complete PNG encoded inside the core (a fresh copy, safe to keep): `'deflate'` is
   * the core's page deflate (one dynamic-Huffman block, LZ77 tuned to glyph rows; smaller than zlib
   * level 1 and the same bytes on every runtime, docs/renderer.md §5), `'runs'` is one fixed-Huffman
   * block whose matches are byte runs, `'stored'` is uncompressed deflate (fastest, largest). All are
   * valid 1-bit PNGs.
   */
  png(mode: CoreDeflate): Uint8Array;
  /**
   * As {@link png}, but a view over WASM memory, valid until the next page or encode: for a caller that
   * copies the bytes on anyway (the render pool packs a chunk's pages into one buffer).
   */
  pngView(mode: CoreDeflate): Uint8Array;
}

/** Deflate strategies the core implements (assembly/png.ts). */
export type CoreDeflate = 'deflate' | 'runs' | 'stored';

const CORE_DEFLATE_CODES: Record<CoreDeflate, number> = { stored: 0, runs: 1, deflate: 2 };

/**
 * A text already encoded as UTF-8 by `TextEncoder` (from a well-formed string: the core does not
 * validate the bytes), e.g. over a `SharedArrayBuffer` so that worker threads share one copy of a
 * large text instead of each receiving a clone of the string (src/render-node/pool.ts).
 */
export interface Utf8Text {
  readonly utf8: Uint8Array;
}

/** The pages of one text; totals are complete once iteration has finished. */
export interface WasmRun extends Iterable<WasmPage> {
  /** Pages produced so far. */
  readonly pages: number;
  /** Characters (code points of `normalize(text)`) laid out so far. */
  readonly chars: number;
  /** Code points drawn as escapes so far. */
  readonly escapes: number;
  readonly cols: number;
  readonly rows: number;
  /**
   * Lays out the next `pages` pages without drawing them, before the iterator's next page: a worker
   * that renders several slices of one text goes forward in the same run instead of starting again.
   */
  skip(pages: number): void;
  /**
   * Lays out up to `limit` more pages now, without drawing them, and returns how many there were
   * (fewer at the end of the text). `onState` sees each page's starting state first (a view, valid
   * during the call: copy it), the state {@link restore} takes: a worker pool counts a text's pages
   * once this way, and each worker starts its slice from the state of its first page.
   */
  layOut(limit: number, onState?: (state: Int32Array, page: number) => void): number;
  /**
   * Continues from `state`, the starting state of page `page` taken by {@link layOut} on a run of the
   * same text and options (on this core or another): the next page is that page, byte for byte as in
   * one run. From here `pages` counts on from `page`, and `chars` from 0. Throws if the state was taken
   * for another text, encoding or layout.
   */
  restore(state: Int32Array, page: number): void;
}

export interface WasmCore {
  /**
   * Lays out and draws `text` page by page. Only one run is live per core: starting another makes
   * the earlier iterator throw on its next step. With `from`, the pages before page `from` (0-based)
   * are laid out but not drawn nor yielded (a worker renders a slice of the pages this way); the
   * pages yielded are byte for byte those of a full run.
   */
  pages(text: string | Utf8Text, options: WasmPageOptions, from?: number): WasmRun;
  /** Layout only (nothing drawn): how many pages, characters and escapes `text` makes. */
  count(text: string | Utf8Text, options: WasmPageOptions): { pages: number; chars: number; escapes: number };
  /** Bytes of linear memory the instance holds now (grows with the largest page and text seen). */
  readonly memoryBytes: number;
}

/** The part of the WebAssembly JS API used here (the ES2023 lib without DOM does not declare it). */
interface WebAssemblyApi {
  compile(bytes: Uint8Array<ArrayBuffer>): Promise<object>;
  instantiate(module: object, imports: object): Promise<{ exports: object }>;
  Module: new (bytes: Uint8Array<ArrayBuffer>) => object;
  Instance: new (module: object, imports: object) => { exports: object };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

let moduleBytes: Uint8Array | undefined;
let compiled: Promise<object> | undefined;

function wasmBytes(): Uint8Array<ArrayBuffer> {
  moduleBytes ??= fromBase64(WASM_BASE64);
  return moduleBytes as Uint8Array<ArrayBuffer>;
}

/**
 * The embedded module, compiled once per process: a `WebAssembly.Module`, which can be posted to
 * worker threads so that they instantiate it without compiling again ({@link loadWasmCoreFrom}).
 */
export function wasmModule(): Promise<object> {
  // Node compiles a module this small (16 KB) synchronously in about half the time of the async path,
  // which waits on background threads (measured: 3–4 ms vs 7–8 ms of a cold start). Browsers limit
  // synchronous compiles on the main thread, so everywhere else the async path stays.
  if (compiled === undefined && isNode()) compiled = Promise.resolve(new wasmApi.Module(wasmBytes()));
  compiled ??= wasmApi.compile(wasmBytes());
  return compiled;
}

/**
 * Hands the core a `WebAssembly.Module` compiled elsewhere, for runtimes that refuse to compile WASM
 * from bytes at run time (Cloudflare Workers, workerd: "Wasm code generation disallowed by embedder")
 * but accept a `.wasm` module import: `import core from 'glyphfold/glyphfold.wasm'` there, then
 * `useWasmModule(core)` before the first `render()`. Throws a TypeError for anything but a module.
 */
export function useWasmModule(module: object): void {
  const api = wasmApi as unknown as { Module?: new (...args: never[]) => object };
  if (api === undefined || typeof api.Module !== 'function' || !(module instanceof api.Module))
    throw new TypeError(
      `useWasmModule: expected a WebAssembly.Module, found ${module === null ? 'null' : typeof module}`,
    );
  compiled = Promise.resolve(module);
}

/** Compiles the embedded module once per process and returns a fresh core over a new instance. */
export async function loadWasmCore(): Promise<WasmCore> {
  return loadWasmCoreFrom(await wasmModule());
}

/** A fresh core over a new instance of `module`, a module from {@link wasmModule} (this or another thread). */
export async function loadWasmCoreFrom(module: object): Promise<WasmCore> {
  const instance = await wasmApi.instantiate(module, {});
  return new Core(instance.exports as unknown as CoreExports);
}

function isNode(): boolean {
  return (
    typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string'
  );
}

/** Synchronous variant for callers that cannot await (Node; browsers limit sync compiles to 4 KiB+). */
export function loadWasmCoreSync(): WasmCore {
  const instance = new wasmApi.Instance(new wasmApi.Module(wasmBytes()), {});
  return new Core(instance.exports as unknown as CoreExports);
}

/** Numbers in a layout state ({@link WasmRun.layOut}, {@link WasmRun.restore}) of this module. */
export const LAYOUT_STATE_INTS = 19;

class Core implements WasmCore {
  private atlasKey = '';
  private generation = 0;

  constructor(private readonly x: CoreExports) {
    if (x.layoutStateInts() !== LAYOUT_STATE_INTS)
      throw new Error(
        `wasm core: expected ${LAYOUT_STATE_INTS} numbers in a layout state, the module has ${x.layoutStateInts()}`,
      );
  }

  get memoryBytes(): number {
    return this.x.memory.buffer.byteLength;
  }

  pages(text: string | Utf8Text, options: WasmPageOptions, from = 0): WasmRun {
    checkSkip('from', from);
    const { cols, rows } = this.start(text, options);
    const x = this.x;
    const generation = this.generation;
    const isCurrent = (): boolean => this.generation === generation;
    // memory does not grow after start(), so one view serves every page of this run.
    const scanlines = new Uint8Array(x.memory.buffer, x.pagePointer(), x.pageLength());
    const totals = { pages: 0, chars: 0, escapes: 0 };
    const pngView = (mode: CoreDeflate): Uint8Array => {
      if (!isCurrent()) throw new Error('wasm core: this page belongs to a superseded run');
      const code = CORE_DEFLATE_CODES[mode];
      if (code === undefined || !Object.hasOwn(CORE_DEFLATE_CODES, mode)) {
        throw new RangeError(`png mode must be 'deflate', 'runs' or 'stored', found ${String(mode)}`);
      }
      const length = x.encodePage(code);
      return new Uint8Array(x.memory.buffer, x.pngPointer(), length);
    };
    const png = (mode: CoreDeflate): Uint8Array => pngView(mode).slice();
    let finished = false;
    let skip = from;
    const stateInts = LAYOUT_STATE_INTS;
    const stateView = (): Int32Array => new Int32Array(x.memory.buffer, x.layoutStatePointer(), stateInts);
    // Lines: laying out without the cell buffer leaves the same state; flow marks spaces in it.
    const layoutOnly = options.layout === 'flow' ? 2 : 0;
    const current = (): void => {
      if (!isCurrent())
        throw new Error('wasm core: this run was superseded by a later pages()/count() on the same core');
    };
    function* iterate(): Generator<WasmPage, void, void> {
      while (!finished) {
        current();
        for (; skip > 0 && !finished; skip--) {
          const n = x.nextPage(2);
          if (n < 0) finished = true;
          else {
            totals.pages++;
            totals.chars += n;
            totals.escapes = x.escapeCount();
          }
        }
        if (finished) return;
        const n = x.nextPage(1);
        if (n < 0) {
          finished = true;
          return;
        }
        const escapes = x.escapeCount();
        totals.pages++;
        totals.chars += n;
        yield { scanlines, chars: n, escapes: escapes - totals.escapes, png, pngView };
        totals.escapes = escapes;
      }
    }
    return {
      cols,
      rows,
      get pages() {
        return totals.pages;
      },
      get chars() {
        return totals.chars;
      },
      get escapes() {
        return x.escapeCount();
      },
      skip(pages: number) {
        checkSkip('pages', pages);
        skip += pages;
      },
      layOut(limit: number, onState?: (state: Int32Array, page: number) => void): number {
        checkSkip('limit', limit);
        current();
        let n = 0;
        for (; n < limit + skip && !finished; n++) {
          if (onState && n >= skip) {
            x.saveLayout();
            onState(stateView(), totals.pages);
          }
          const chars = x.nextPage(n < skip ? 2 : layoutOnly);
          if (chars < 0) finished = true;
          else {
            totals.pages++;
            totals.chars += chars;
          }
        }
        totals.escapes = x.escapeCount();
        const laid = Math.max(0, n - skip - (finished ? 1 : 0));
        skip = 0;
        return laid;
      },
      restore(state: Int32Array, page: number) {
        checkSkip('page', page);
        current();
        if (!(state instanceof Int32Array) || state.length !== stateInts)
          throw new TypeError(`restore: expected a layout state of ${stateInts} numbers from layOut()`);
        stateView().set(state);
        if (x.restoreLayout() !== 0)
          throw new Error('restore: this layout state was taken for another text, encoding or layout');
        finished = false;
        skip = 0;
        totals.pages = page;
        totals.chars = 0;
        totals.escapes = x.escapeCount();
      },
      [Symbol.iterator]: iterate,
    };
  }

  count(
    text: string | Utf8Text,
    options: WasmPageOptions,
  ): { pages: number; chars: number; escapes: number } {
    this.start(text, options);
    let pages = 0;
    let chars = 0;
    for (let n = this.x.nextPage(0); n >= 0; n = this.x.nextPage(0)) {
      pages++;
      chars += n;
    }
    return { pages, chars, escapes: this.x.escapeCount() };
  }

  /** Validates, loads the atlas if the cell or scale changed, and writes the text into memory. */
  private start(text: string | Utf8Text, options: WasmPageOptions): { cols: number; rows: number } {
    const utf8 = typeof text === 'object' && text !== null ? text.utf8 : undefined;
    if (typeof text !== 'string' && !(utf8 instanceof Uint8Array)) {
      throw new TypeError(`text must be a string, found ${text === null ? 'null' : typeof text}`);
    }
    // Same checks and messages as the TS reference (unknown cell, scale, sides, area, fewer than 2×2 cells).
    const { cell, scale, spacing, layout, cols, rows, width, height } = pageGeometry(
      { width: options.width, height: options.height },
      options.cell,
      options.scale,
      options.spacing,
      options.layout,
    );
    this.generation++;
    const x = this.x;
    const key = `${cell}+${spacing.x}+${spacing.y}@${scale}`;
    if (this.atlasKey !== key) {
      this.atlasKey = '';
      const atlas = atlasBytes(cell, spacing);
      const at = x.atlasBuffer(atlas.length);
      if (at === 0) throw new Error(`wasm core: out of memory loading the ${cell} atlas`);
      new Uint8Array(x.memory.buffer, at, atlas.length).set(atlas);
      const glyphs = x.loadAtlas(atlas.length, scale);
      if (glyphs < 0) throw new Error(`wasm core: the ${cell} atlas was rejected (code ${glyphs})`);
      this.atlasKey = key;
    }

    if (utf8 !== undefined) {
      const ptr = this.prepare(width, height, utf8.length + 16);
      new Uint8Array(x.memory.buffer, ptr, utf8.length).set(utf8);
      x.begin(utf8.length, 0, layout === 'flow' ? 1 : 0);
      return { cols, rows };
    }
    text = text as string;
    const wellFormed =
      (text as { isWellFormed?: () => boolean }).isWellFormed?.() ?? !LONE_SURROGATE.test(text);
    if (wellFormed) {
      // UTF-8 straight into memory. Reserve one byte per UTF-16 unit first (enough for ASCII); if
      // encodeInto stops short, grow the area (same pointer: the input is the last region) and go on.
      let capacity = text.length + 16;
      let ptr = this.prepare(width, height, capacity);
      let { read, written } = encoder.encodeInto(text, new Uint8Array(x.memory.buffer, ptr, capacity));
      while (read < text.length) {
        capacity = written + 3 * (text.length - read) + 16;
        ptr = this.prepare(width, height, capacity);
        const more = encoder.encodeInto(
          text.slice(read),
          new Uint8Array(x.memory.buffer, ptr + written, capacity - written),
        );
        read += more.read;
        written += more.written;
      }
      x.begin(written, 0, layout === 'flow' ? 1 : 0);
    } else {
      // Lone surrogates: UTF-8 cannot carry them, so the core reads UTF-16 units and escapes them.
      const ptr = this.prepare(width, height, text.length * 2);
      const units = new Uint16Array(x.memory.buffer, ptr, text.length);
      for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
      x.begin(text.length, 1, layout === 'flow' ? 1 : 0);
    }
    return { cols, rows };
  }

  private prepare(width: number, height: number, capacity: number): number {
    if (capacity > 2 ** 31) throw new RangeError(`text of ${capacity} bytes is too large for the wasm core`);
    const ptr = this.x.prepare(width, height, capacity);
    if (ptr === 0) {
      throw new Error(`wasm core: out of memory for a ${width}x${height} page and ${capacity} bytes of text`);
    }
    return ptr;
  }
}

function checkSkip(name: string, n: number): void {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`${name} must be an integer ≥ 0, found ${String(n)}`);
}

const encoder = new TextEncoder();
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
