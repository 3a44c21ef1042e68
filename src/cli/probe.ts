/** `glyphfold probe`: measure whether a model reads snapshot pages, on the real provider. */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CELL_NAMES, MAX_SCALE, type CellName } from '../render/cells.js';
import { resolveProfile } from '../providers/index.js';
import {
  connect,
  MissingKeyError,
  NEEDLE_KINDS,
  runProbe,
  type KindRecall,
  type ProbeResult,
} from '../probe/index.js';
import { UsageError, type CliIO, type Command } from './command.js';

/** Cells and scales `--shapes` tries, smallest glyphs first. */
export const PROBE_SHAPES: readonly { cell: CellName; scale: number }[] = [
  { cell: '4x6', scale: 1 },
  { cell: '5x8', scale: 1 },
  { cell: '6x10', scale: 1 },
  { cell: '4x6', scale: 2 },
  { cell: '5x8', scale: 2 },
];

const usage = `usage: glyphfold probe --model ID [--cell 4x6|5x8|6x10] [--scale 1-${MAX_SCALE}] [--pages N]
                       [--shapes] [--seed N] [--needles N] [--json] [--out FILE] [--base-url URL]

Renders pages of prose and code with planted needles (codes, numbers, identifiers, a quoted
sentence) in the page shape the model's profile asks for, sends them through the provider's own API,
asks for the needles back, and reports recall per kind (exact / partial: normalized edit distance
≤ 0.2 / none), billed image tokens against the profile's estimate, and what the same content costs
as text. Costs real tokens: one request per shape.

  --model ID       model id as your route names it (claude-sonnet-4-5, gpt-5.1, …)
  --cell, --scale  glyph cell and integer scale (default 4x6, 1)
  --pages N        pages in the one request (default 1)
  --shapes         run ${PROBE_SHAPES.map((s) => `${s.cell}@${s.scale}`).join(', ')} and print a table
  --seed N         document and needle seed (default 1): same seed, same pages
  --needles N      needles per page (default 8)
  --json           print the results as JSON instead of a table
  --out FILE       also write the JSON results to FILE
  --base-url URL   send to this endpoint instead of the vendor's (same API and key variable)

Keys come from ANTHROPIC_API_KEY (Claude) or OPENAI_API_KEY (OpenAI). Gemini is not supported yet.
See docs/probe.md.`;

function int(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, found '${raw}'`);
  }
  return Number(raw);
}

const cellText = (k: KindRecall) => `${k.exact}/${k.partial}/${k.none}`;

/** The `--shapes` table: one row per shape; recall columns are exact/partial/none counts. */
export function formatTable(results: readonly ProbeResult[]): string {
  const header = [
    'cell',
    'scale',
    'page',
    'chars',
    ...NEEDLE_KINDS,
    'overall',
    'img tok billed',
    'img tok est',
    'text tok',
    'text/img',
  ];
  const rows = results.map((r) => [
    r.cell,
    String(r.scale),
    `${r.shape.width}x${r.shape.height}${r.shape.detail ? ` ${r.shape.detail}` : ''}`,
    String(r.chars),
    ...NEEDLE_KINDS.map((k) => cellText(r.recall.byKind[k])),
    `${cellText(r.recall.overall)} (${Math.round((100 * r.recall.overall.exact) / Math.max(1, r.recall.overall.total))}% exact)`,
    r.tokens.imageBilled !== undefined ? String(r.tokens.imageBilled) : 'n/a',
    String(r.tokens.imageEstimate),
    r.tokens.contentText !== undefined ? String(r.tokens.contentText) : 'n/a',
    r.tokens.contentText !== undefined && r.tokens.imageBilled
      ? `${(r.tokens.contentText / r.tokens.imageBilled).toFixed(1)}x`
      : 'n/a',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

export async function runProbeCli(
  argv: string[],
  io: CliIO,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      model: { type: 'string' },
      cell: { type: 'string' },
      scale: { type: 'string' },
      pages: { type: 'string' },
      shapes: { type: 'boolean', default: false },
      seed: { type: 'string' },
      needles: { type: 'string' },
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
      'base-url': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  if (!values.model) throw new UsageError('--model is required');
  if (values.cell !== undefined && !CELL_NAMES.includes(values.cell as CellName)) {
    throw new UsageError(`--cell must be one of ${CELL_NAMES.join(', ')}, found '${values.cell}'`);
  }
  if (values.shapes && (values.cell !== undefined || values.scale !== undefined)) {
    throw new UsageError('--shapes runs its own cells and scales; drop --cell and --scale');
  }
  const scale = int('scale', values.scale, 1, 1, MAX_SCALE);
  const pages = int('pages', values.pages, 1, 1, 100);
  const seed = int('seed', values.seed, 1, 0, 2 ** 32 - 1);
  const needlesPerPage = int('needles', values.needles, 8, 1, 40);

  const resolved = resolveProfile(values.model);
  if (resolved.guessed) {
    io.stderr.write(
      `glyphfold probe: '${values.model}' matches no profile; using the guess '${resolved.profile.family}'\n`,
    );
  }
  let client;
  try {
    client = connect({
      provider: resolved.profile.provider,
      route: resolved.route,
      model: values.model,
      env,
      ...(values['base-url'] !== undefined ? { baseURL: values['base-url'] } : {}),
    });
  } catch (err) {
    if (err instanceof MissingKeyError) {
      io.stderr.write(`glyphfold probe: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  const shapes = values.shapes ? PROBE_SHAPES : [{ cell: (values.cell ?? '4x6') as CellName, scale }];
  const results: ProbeResult[] = [];
  for (const shape of shapes) {
    if (io.isTTY) io.stderr.write(`probe: ${values.model} ${shape.cell}@${shape.scale}, ${pages} page(s)…\n`);
    results.push(
      await runProbe({ resolved, client, cell: shape.cell, scale: shape.scale, pages, seed, needlesPerPage }),
    );
  }
  const json = JSON.stringify(results, null, 2) + '\n';
  if (values.out) await writeFile(resolve(io.cwd, values.out), json);
  if (values.json) {
    io.stdout.write(json);
  } else {
    const r0 = results[0]!;
    io.stdout.write(
      `model ${r0.model} (${r0.profile.family}, route ${r0.profile.route}${r0.profile.guessed ? ', guessed' : ''}), ` +
        `${pages} page(s), ${needlesPerPage} needles/page, seed ${seed}; recall as exact/partial/none\n`,
    );
    io.stdout.write(formatTable(results));
    for (const r of results)
      for (const note of r.notes) io.stdout.write(`note (${r.cell}@${r.scale}): ${note}\n`);
  }
  return 0;
}

export const probeCommand: Command = {
  name: 'probe',
  summary: 'Measure whether a model reads snapshot pages (needle recall, billed tokens)',
  usage,
  run: (argv, io) => runProbeCli(argv, io, process.env),
};
