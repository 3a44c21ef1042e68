/**
 * `glyphfold/render`: text → pages of 5-px glyphs as 1-bit PNGs, and back. Edge-safe: imports no
 * Node-only module (Node's zlib is used when the runtime offers it, see png.ts). The page format is
 * docs/renderer.md; the user guide is docs/render.md.
 */
import type { CellName } from './cells.js';
import type { Layout, Spacing, Variant } from './variant.js';
import type { PageShape } from './geometry.js';
import { encodePng, type Compression, type DeflatePath } from './png.js';
import { layoutGeometry, renderScanlines } from './reference.js';
import { loadWasmCore, useWasmModule as setWasmModule, type WasmCore } from './wasm.js';

export { cellSize, CELL_NAMES, MAX_SCALE, type CellName } from './cells.js';
export { normalize, TAB_WIDTH } from './normalize.js';
export { decode, type DecodeOptions } from './decode.js';
export { countPages, layoutRows } from './reference.js';
export {
  LAYOUTS,
  parseVariant,
  variantCell,
  variantId,
  variantOf,
  type Layout,
  type Spacing,
  type Variant,
} from './variant.js';
export {
  MAX_PAGE_PIXELS,
  MAX_PAGE_SIDE,
  pageGeometry,
  type PageGeometry,
  type PageShape,
} from './geometry.js';
export { availableDeflatePaths, type Compression, type DeflatePath } from './png.js';

/** Which layout-and-draw implementation produces the scanlines; both give identical bytes. */
export type RenderEngine = 'wasm' | 'ts';

export interface RenderOptions {
  /** Page size in pixels; it must hold at least 2×2 cells. */
  shape: PageShape;
  /** Glyph cell, default '4x6'. */
  cell?: CellName;
  /** Integer scale 1–4, default 1: every font pixel becomes a scale × scale block. */
  scale?: number;
  /** Blank font pixels added right of (x, 0–2) and below (y, 0–3) every glyph; default none. */
  spacing?: Partial<Spacing>;
  /** 'lines' (default: a row per line, long lines wrap with a mark) or 'flow' (rows filled, ¶ marks line ends). */
  layout?: Layout;
  /** A variant id such as `6x10+r1+flow`, or a Variant; wins over cell, scale, spacing and layout. */
  variant?: string | Variant;
  /**
   * 'default' (smaller PNGs) or 'fastest' (stored blocks, the same bytes on every path). On the WASM
   * engine 'default' is the core's page deflate, byte-identical on every runtime (docs/renderer.md §5).
   */
  compression?: Compression;
  /**
   * Deflate path for 'default' instead of the core's deflate: Node's zlib, CompressionStream or
   * fflate. Default: the core's deflate on the WASM engine; on the TS engine Node's zlib if present,
   * else CompressionStream, else fflate.
   */
  deflate?: DeflatePath;
  /** Default: the WASM core where the runtime can instantiate it, else the TS reference. */
  engine?: RenderEngine;
  /**
   * Most pages this call may produce, default `DEFAULT_MAX_PAGES` (10,000); a text that needs more
   * throws a RangeError before drawing page `maxPages + 1`. `Infinity` lifts the limit.
   */
  maxPages?: number;
  /** Called after each page is encoded, in order (e.g. to write it out or report progress). */
  onPage?: (page: RenderedPage, index: number) => void | Promise<void>;
}

export interface RenderedPage {
  width: number;
  height: number;
  /** Code points of the normalized text on this page (a newline counts on the page of its line). */
  chars: number;
  png: Uint8Array;
}

export interface RenderResult {
  pages: RenderedPage[];
  /** Code points of `normalize(text)`. */
  chars: number;
  /** Code points drawn as `U+XXXX` escapes. */
  escapes: number;
  /** Total PNG bytes. */
  bytes: number;
}

/** `render()`'s default page limit: far above any request (a provider takes ≤ 100 images) yet bounded. */
export const DEFAULT_MAX_PAGES = 10_000;

const COMPRESSIONS: readonly Compression[] = ['default', 'fastest'];
const ENGINES: readonly RenderEngine[] = ['wasm', 'ts'];
const DEFLATE_PATHS: readonly DeflatePath[] = ['zlib', 'stream', 'fflate'];

function checkOption<T extends string>(name: string, value: T | undefined, allowed: readonly T[]): void {
  if (value !== undefined && !allowed.includes(value)) {
    throw new RangeError(`${name} must be one of ${allowed.join(', ')}, found ${String(value)}`);
  }
}

// Idle WASM cores. A core runs one text at a time (its pages are views over its memory), so concurrent
// render() calls each take their own; memory of a core never shrinks, so a core grown by a huge text is
// dropped rather than kept.
const idleCores: WasmCore[] = [];
const MAX_IDLE_CORES = 4;
const MAX_IDLE_CORE_BYTES = 64 * 1024 * 1024;
let wasmFailure: unknown;

async function acquireCore(required: boolean): Promise<WasmCore | undefined> {
  const idle = idleCores.pop();
  if (idle) return idle;
  if (wasmFailure === undefined) {
    try {
      return await loadWasmCore();
    } catch (err) {
      // e.g. a runtime that forbids compiling WebAssembly from bytes: use the TS reference instead.
      wasmFailure = err;
    }
  }
  if (required) throw new Error('the WASM engine is not available in this runtime', { cause: wasmFailure });
  return undefined;
}

/**
 * Makes the WASM engine use `module`, a `WebAssembly.Module` of the core (`glyphfold/glyphfold.wasm`)
 * compiled by the host, where run-time compiles are refused (Cloudflare Workers: import the `.wasm` as
 * a module). Call it before the first render; a failure to compile earlier is forgotten.
 */
export function useWasmModule(module: object): void {
  setWasmModule(module);
  wasmFailure = undefined;
}

function releaseCore(core: WasmCore): void {
  if (idleCores.length < MAX_IDLE_CORES && core.memoryBytes <= MAX_IDLE_CORE_BYTES) idleCores.push(core);
}

/**
 * Renders `text` into PNG pages (docs/renderer.md). The same text and options give the same bytes on
 * the same deflate path; on the WASM engine without a `deflate` path, on every runtime. Throws a TypeError for a non-string text and a RangeError, naming expected vs
 * found, for a bad shape, cell, scale, compression, engine or deflate path.
 */
export async function render(text: string, options: RenderOptions): Promise<RenderResult> {
  if (typeof text !== 'string') {
    throw new TypeError(
      `render: expected text to be a string, found ${text === null ? 'null' : typeof text}`,
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`render: expected options { shape, cell?, scale?, … }, found ${String(options)}`);
  }
  const g = layoutGeometry(options);
  checkOption('compression', options.compression, COMPRESSIONS);
  checkOption('engine', options.engine, ENGINES);
  checkOption('deflate', options.deflate, DEFLATE_PATHS);
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  if (!(maxPages === Infinity || (Number.isInteger(maxPages) && maxPages >= 1)))
    throw new RangeError(`maxPages must be an integer ≥ 1 or Infinity, found ${String(maxPages)}`);
  const encodeOptions = { compression: options.compression ?? 'default', path: options.deflate };
  const result: RenderResult = { pages: [], chars: 0, escapes: 0, bytes: 0 };
  const core = options.engine === 'ts' ? undefined : await acquireCore(options.engine === 'wasm');
  try {
    const pages = core
      ? core.pages(text, {
          width: g.width,
          height: g.height,
          cell: g.cell,
          scale: g.scale,
          spacing: g.spacing,
          layout: g.layout,
        })
      : renderScanlines(text, options);
    // On the core, unless a deflate path is asked for, the page is encoded where it was drawn:
    // 'default' with the core's page deflate (the same bytes on every runtime, docs/renderer.md §5),
    // 'fastest' with its stored encoder, which writes the same bytes as png.ts 'fastest' (tested).
    const inCore =
      core !== undefined && (options.deflate === undefined || encodeOptions.compression === 'fastest');
    const coreMode = encodeOptions.compression === 'fastest' ? 'stored' : 'deflate';
    for (const page of pages) {
      if (result.pages.length >= maxPages)
        throw new RangeError(
          `render: the text needs more than ${maxPages} pages of ${g.width}x${g.height}; ` +
            `pass a larger maxPages (or Infinity) to lift the limit`,
        );
      // Deflate before the generator resumes: the scanline buffer is reused for the next page.
      const png =
        inCore && 'png' in page
          ? page.png(coreMode)
          : await encodePng({ width: g.width, height: g.height, scanlines: page.scanlines }, encodeOptions);
      const rendered: RenderedPage = { width: g.width, height: g.height, chars: page.chars, png };
      result.pages.push(rendered);
      result.chars += page.chars;
      result.escapes += page.escapes;
      result.bytes += png.length;
      await options.onPage?.(rendered, result.pages.length - 1);
    }
  } finally {
    if (core) releaseCore(core);
  }
  return result;
}
