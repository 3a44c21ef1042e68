import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CELL_NAMES, decode, type CellName } from '../render/index.js';
import { UsageError, type CliIO, type Command } from './command.js';

const usage = `usage: glyphfold decode FILES|DIR [--cell 4x6|5x8|6x10] [--scale N]

Reads rendered pages back and prints the text they hold (normalized, see docs/render.md).
A DIR stands for its *.png files in name order (page-001.png, page-002.png, …).

  --cell NAME   the cell the pages were rendered with (default 4x6)
  --scale N     the scale they were rendered with (default 1)
`;

async function expand(paths: string[], cwd: string): Promise<string[]> {
  const files: string[] = [];
  for (const p of paths) {
    const full = resolve(cwd, p);
    if ((await stat(full)).isDirectory()) {
      const pngs = (await readdir(full)).filter((f) => f.toLowerCase().endsWith('.png'));
      if (pngs.length === 0) throw new Error(`${p}: expected PNG pages in this directory, found none`);
      pngs.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
      files.push(...pngs.map((f) => join(full, f)));
    } else {
      files.push(full);
    }
  }
  return files;
}

export const decodeCommand: Command = {
  name: 'decode',
  summary: 'read rendered pages back into text',
  usage,
  async run(argv: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { cell: { type: 'string', default: '4x6' }, scale: { type: 'string', default: '1' } },
    });
    if (positionals.length === 0) throw new UsageError('expected FILES or a DIR of pages');
    if (!CELL_NAMES.includes(values.cell as CellName)) {
      throw new UsageError(`--cell expects one of ${CELL_NAMES.join(', ')}, found '${values.cell}'`);
    }
    if (!/^[1-4]$/.test(values.scale))
      throw new UsageError(`--scale expects an integer 1–4, found '${values.scale}'`);
    const files = await expand(positionals, io.cwd);
    const pngs = await Promise.all(files.map(async (f) => new Uint8Array(await readFile(f))));
    let text: string;
    try {
      text = decode(pngs, { cell: values.cell as CellName, scale: Number(values.scale) });
    } catch (err) {
      // decode() counts pages from 1; name the file instead.
      const m = err instanceof Error ? /^page (\d+)/.exec(err.message) : null;
      if (!m) throw err;
      throw new Error(`${files[Number(m[1]) - 1]}${(err as Error).message.slice(m[0].length)}`, {
        cause: err,
      });
    }
    io.stdout.write(text === '' ? '' : text + '\n');
    return 0;
  },
};
