import { parseArgs } from 'node:util';
import { CELL_NAMES, type CellName } from '../render/cells.js';
import { render } from '../render/index.js';
import { loadWasmCore, type WasmCore } from '../render/wasm.js';
import { UsageError, type Command } from './command.js';
import { englishProse } from './prose.js';
import { DEFAULT_SHAPE_MODELS, DEFAULT_TEXT_CHARS_PER_TOKEN, shapeRows } from './shapes.js';

/** Render throughput of one page shape (the models whose best page it is share one row). */
export interface ShapeBenchRow {
  models: string[];
  width: number;
  height: number;
  cols: number;
  rows: number;
  tokensPerPage: number;
  pages: number;
  charsPerPage: number;
  /** The WASM core laying out and drawing the scanlines (no PNG). */
  drawMcharsPerSec: number;
  drawMsPerPage: number;
  /** `render()` end to end: the WASM core and the PNG encode ('default' compression unless asked). */
  pngMcharsPerSec: number;
  pngMsPerPage: number;
  kibPerPage: number;
}

export interface ShapeBenchOptions {
  models?: readonly string[];
  cell?: CellName;
  scale?: number;
  compression?: 'default' | 'fastest';
  /** Characters of prose rendered per measured call (default 300,000). */
  chars?: number;
  /** Time spent measuring each shape and pass, in ms (default 250). */
  timeMs?: number;
  onProgress?: (done: number, total: number, label: string) => void;
}

/** Median milliseconds of `fn` over as many calls as fit in `timeMs` (at least 3), after one warm-up. */
async function timeIt(fn: () => unknown, timeMs: number): Promise<number> {
  await fn();
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < 3 || performance.now() - start < timeMs) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

function drain(
  core: WasmCore,
  text: string,
  shape: { width: number; height: number },
  cell: CellName,
  scale: number,
) {
  let pages = 0;
  for (const _ of core.pages(text, { ...shape, cell, scale })) pages++;
  return pages;
}

/**
 * For the best page shape of each model (as `glyphfold shapes` picks it), measures the WASM core's
 * throughput on English prose: drawing only, and `render()` to PNG bytes.
 */
export async function benchShapes(
  options: ShapeBenchOptions = {},
): Promise<{ rows: ShapeBenchRow[]; skipped: string[] }> {
  const cell = options.cell ?? '4x6';
  const scale = options.scale ?? 1;
  const timeMs = options.timeMs ?? 250;
  const text = englishProse(options.chars ?? 300_000);
  const found = shapeRows(options.models ?? DEFAULT_SHAPE_MODELS, {
    cell,
    scale,
    textCharsPerToken: DEFAULT_TEXT_CHARS_PER_TOKEN,
  });
  const byShape = new Map<string, ShapeBenchRow>();
  const skipped: string[] = [];
  for (const r of found) {
    const s = r.shape;
    if (!s) {
      skipped.push(r.model); // no vision: no snapshot pages to render
      continue;
    }
    const key = `${s.width}x${s.height}`;
    const row = byShape.get(key);
    if (row) {
      row.models.push(r.model);
      continue;
    }
    byShape.set(key, {
      models: [r.model],
      width: s.width,
      height: s.height,
      cols: s.cols,
      rows: s.rows,
      tokensPerPage: s.tokens,
      pages: 0,
      charsPerPage: 0,
      drawMcharsPerSec: 0,
      drawMsPerPage: 0,
      pngMcharsPerSec: 0,
      pngMsPerPage: 0,
      kibPerPage: 0,
    });
  }
  const core = await loadWasmCore();
  const rows = [...byShape.values()];
  let done = 0;
  for (const row of rows) {
    options.onProgress?.(done++, rows.length, `${row.width}x${row.height}`);
    const shape = { width: row.width, height: row.height };
    const result = await render(text, {
      shape,
      cell,
      scale,
      engine: 'wasm',
      compression: options.compression,
    });
    row.pages = result.pages.length;
    row.charsPerPage = Math.round(result.chars / row.pages);
    row.kibPerPage = Number((result.bytes / row.pages / 1024).toFixed(1));
    const drawMs = await timeIt(() => drain(core, text, shape, cell, scale), timeMs);
    const pngMs = await timeIt(
      () => render(text, { shape, cell, scale, engine: 'wasm', compression: options.compression }),
      timeMs,
    );
    row.drawMcharsPerSec = Number((result.chars / drawMs / 1000).toFixed(1));
    row.drawMsPerPage = Number((drawMs / row.pages).toFixed(3));
    row.pngMcharsPerSec = Number((result.chars / pngMs / 1000).toFixed(1));
    row.pngMsPerPage = Number((pngMs / row.pages).toFixed(3));
  }
  options.onProgress?.(rows.length, rows.length, 'done');
  return { rows, skipped };
}

function table(rows: ShapeBenchRow[], skipped: string[], compression: string): string {
  const head = [
    'page W×H',
    'cols×rows',
    'tokens/page',
    'chars/page',
    'draw Mchar/s',
    'draw ms/page',
    `PNG Mchar/s`,
    `PNG ms/page`,
    'KiB/page',
    'models',
  ];
  const body = rows.map((r) => [
    `${r.width}×${r.height}`,
    `${r.cols}×${r.rows}`,
    String(r.tokensPerPage),
    String(r.charsPerPage),
    r.drawMcharsPerSec.toFixed(1),
    r.drawMsPerPage.toFixed(3),
    r.pngMcharsPerSec.toFixed(1),
    r.pngMsPerPage.toFixed(3),
    r.kibPerPage.toFixed(1),
    r.models.join(', '),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 2 && i < 9 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return (
    [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n') +
    `\n\nWASM core on English prose; draw = layout and scanlines only, PNG = render() with '${compression}' ` +
    'compression.\nWall-clock medians: on a shared machine compare rows of one run, not runs.\n' +
    (skipped.length > 0 ? `Skipped (no vision): ${skipped.join(', ')}.\n` : '')
  );
}

const usage = `usage: glyphfold bench --shapes [--model ID …] [--cell 4x6|5x8|6x10] [--scale N]
                       [--compression default|fastest] [--json]

Measures render throughput on the page shape \`glyphfold shapes\` picks for each model (with no --model,
the main models of every provider): the WASM core drawing English prose (Mchar/s, ms per page), and
render() to PNG bytes. Models sharing a shape share a row. Takes a few seconds.

  --shapes              the benchmark to run (the only one so far)
  --model ID            a model id (repeatable); default: the table of \`glyphfold shapes\`
  --cell NAME           glyph cell (default 4x6)
  --scale N             integer pixel scale 1-4 (default 1)
  --compression MODE    PNG compression of the render() pass (default: default)
  --json                print JSON instead of a table
`;

export const benchCommand: Command = {
  name: 'bench',
  summary: 'render throughput on the best page shape of each model (--shapes)',
  usage,
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        shapes: { type: 'boolean', default: false },
        model: { type: 'string', multiple: true },
        cell: { type: 'string' },
        scale: { type: 'string' },
        compression: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (!values.shapes) throw new UsageError('nothing to measure: pass --shapes');
    const cell = values.cell;
    if (cell !== undefined && !(CELL_NAMES as string[]).includes(cell)) {
      throw new UsageError(`--cell must be one of ${CELL_NAMES.join(', ')}, found '${cell}'`);
    }
    const scale = values.scale === undefined ? undefined : Number(values.scale);
    if (scale !== undefined && !(Number.isInteger(scale) && scale >= 1 && scale <= 4)) {
      throw new UsageError(`--scale must be an integer 1-4, found '${values.scale}'`);
    }
    const compression = values.compression ?? 'default';
    if (compression !== 'default' && compression !== 'fastest') {
      throw new UsageError(`--compression must be default or fastest, found '${compression}'`);
    }
    const options: ShapeBenchOptions = { compression };
    if (values.model && values.model.length > 0) options.models = values.model;
    if (cell !== undefined) options.cell = cell as CellName;
    if (scale !== undefined) options.scale = scale;
    if (io.isTTY) {
      options.onProgress = (done, total, label) =>
        io.stderr.write(done < total ? `\rbench ${done + 1}/${total}: ${label}   ` : '\r\x1b[K');
    }
    const { rows, skipped } = await benchShapes(options);
    if (rows.length === 0) throw new Error('no model with vision among those named: nothing to render');
    if (values.json) {
      io.stdout.write(
        JSON.stringify({ cell: cell ?? '4x6', scale: scale ?? 1, compression, rows, skipped }, null, 2) +
          '\n',
      );
    } else io.stdout.write(table(rows, skipped, compression));
    return 0;
  },
};
