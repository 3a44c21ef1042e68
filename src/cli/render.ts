import { mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CELL_NAMES, countPages, render, type CellName, type Compression } from '../render/index.js';
import { createRenderPool } from '../render-node/index.js';
import { UsageError, type CliIO, type Command } from './command.js';
import { pageFileName } from './page-files.js';

const usage = `usage: glyphfold render [FILE|-] --shape WxH [--cell 4x6|5x8|6x10] [--scale N] --out DIR [--json]

Renders a text file (or stdin with '-' or no FILE) into pages of glyphs: DIR/page-001.png, …
Existing page-NNN.png files in DIR are replaced. Prints pages, characters, escapes and bytes.

  --shape WxH          page size in pixels (default 1568x784)
  --cell NAME          glyph cell: ${CELL_NAMES.join(', ')} (default 4x6)
  --scale N            integer scale 1–4 (default 1)
  --compression MODE   default | fastest (default: default)
  --jobs N             render on N threads, this one and N-1 workers, 'auto' = one per core
                       (default 1: this thread only); the same bytes
  --out DIR            where the pages go (required)
  --json               print one JSON object instead of the summary
`;

const PAGE_FILE = /^page-\d{3,}\.png$/;
const PROGRESS_MIN_PAGES = 20;

/** Parses 'WxH' into a shape; the renderer checks the ranges. */
export function parseShape(value: string): { width: number; height: number } {
  const m = /^(\d+)[x×](\d+)$/.exec(value.trim());
  if (!m) throw new UsageError(`--shape expects WxH in pixels (e.g. 1568x784), found '${value}'`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

async function readInput(file: string | undefined, io: CliIO): Promise<{ text: string; name: string }> {
  if (file === undefined || file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return { text: Buffer.concat(chunks).toString('utf8'), name: 'stdin' };
  }
  return { text: await readFile(resolve(io.cwd, file), 'utf8'), name: file };
}

export const renderCommand: Command = {
  name: 'render',
  summary: 'render text into pages of 5-px glyphs (PNG)',
  usage,
  async run(argv: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        shape: { type: 'string', default: '1568x784' },
        cell: { type: 'string', default: '4x6' },
        scale: { type: 'string', default: '1' },
        compression: { type: 'string', default: 'default' },
        jobs: { type: 'string', default: '1' },
        out: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    if (positionals.length > 1)
      throw new UsageError(`expected at most one FILE, found ${positionals.length}`);
    if (!values.out) throw new UsageError('--out DIR is required');
    if (!CELL_NAMES.includes(values.cell as CellName)) {
      throw new UsageError(`--cell expects one of ${CELL_NAMES.join(', ')}, found '${values.cell}'`);
    }
    if (!/^[1-4]$/.test(values.scale))
      throw new UsageError(`--scale expects an integer 1–4, found '${values.scale}'`);
    if (values.compression !== 'default' && values.compression !== 'fastest') {
      throw new UsageError(`--compression expects default or fastest, found '${values.compression}'`);
    }
    const jobs = values.jobs === 'auto' ? availableParallelism() : Number(values.jobs);
    if (!/^(auto|[1-9]\d*)$/.test(values.jobs)) {
      throw new UsageError(`--jobs expects an integer ≥ 1 or 'auto', found '${values.jobs}'`);
    }
    const shape = parseShape(values.shape);
    const cell = values.cell as CellName;
    const scale = Number(values.scale);
    const { text, name } = await readInput(positionals[0], io);

    const outDir = resolve(io.cwd, values.out);
    await mkdir(outDir, { recursive: true });
    // Stale pages from an earlier, longer rendering would otherwise decode as part of this one.
    for (const entry of await readdir(outDir)) if (PAGE_FILE.test(entry)) await unlink(join(outDir, entry));

    const files: string[] = [];
    // Progress only on a terminal and only for runs long enough to need it; the layout-only count is
    // cheap next to drawing and deflating.
    const total = io.isTTY ? countPages(text, { shape, cell, scale }).pages : 0;
    const progress = total >= PROGRESS_MIN_PAGES;
    const options = {
      shape,
      cell,
      scale,
      compression: values.compression as Compression,
      onPage: async (page: { png: Uint8Array }, index: number) => {
        const file = pageFileName(index);
        await writeFile(join(outDir, file), page.png);
        files.push(file);
        if (progress) io.stderr.write(`\rrendering page ${index + 1}/${total}`);
      },
    };
    let result;
    if (jobs > 1) {
      // Same bytes as the serial path (src/render-node/pool.ts). This thread renders a share too: it has
      // nothing else to do meanwhile, and its pages need no message (docs/render.md).
      const pool = createRenderPool({ size: jobs - 1, callerRenders: true });
      try {
        result = await pool.render(text, options);
      } finally {
        await pool.close();
      }
    } else result = await render(text, options);
    if (progress) io.stderr.write('\r\x1b[K');

    if (values.json) {
      const pages = result.pages.map((p, i) => ({
        file: files[i],
        width: p.width,
        height: p.height,
        chars: p.chars,
      }));
      const summary = {
        input: name,
        out: outDir,
        cell,
        scale,
        pages,
        chars: result.chars,
        escapes: result.escapes,
        bytes: result.bytes,
      };
      io.stdout.write(JSON.stringify(summary) + '\n');
      return 0;
    }
    const n = result.pages.length;
    const fmt = (v: number) => v.toLocaleString('en-US');
    const lines = [
      `rendered ${name} → ${values.out}`,
      `  pages       ${n} (${shape.width}x${shape.height}, cell ${cell}, scale ${scale})`,
      `  characters  ${fmt(result.chars)}${n ? ` (${fmt(Math.round(result.chars / n))} per page)` : ''}`,
      `  escapes     ${fmt(result.escapes)}`,
      `  bytes       ${fmt(result.bytes)}${n ? ` (${fmt(Math.round(result.bytes / n))} per page)` : ''}`,
    ];
    if (n > 0) lines.push(`  files       ${files[0]}${n > 1 ? ` … ${files[n - 1]}` : ''}`);
    else lines.push('  (the normalized text is empty: no pages)');
    io.stdout.write(lines.join('\n') + '\n');
    return 0;
  },
};
