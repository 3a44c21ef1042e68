/** The probe's run: loaded on demand so other commands do not pay for the provider SDKs. */
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
import { transcribeKit } from '../probe/transcribe.js';
import { UsageError, type CliIO } from './command.js';
import { PROBE_SHAPES } from './probe.js';

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
      transcribe: { type: 'string' },
      force: { type: 'boolean', default: false },
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

  if (values.transcribe !== undefined) {
    const dir = resolve(io.cwd, values.transcribe);
    const detail =
      resolved.profile.image.kind === 'openai-patch' || resolved.profile.image.kind === 'openai-tile'
        ? resolved.profile.image.pageDetails[0]
        : undefined;
    const done = await transcribeKit({
      dir,
      client,
      model: values.model,
      force: values.force,
      ...(detail !== undefined ? { detail } : {}),
      onImage: (name, i, n) => io.stderr.write(`transcribe: ${name} (${i + 1}/${n})…\n`),
    });
    io.stdout.write(
      `transcribed ${done.written.length} image(s) in ${dir} with ${values.model}` +
        `${done.skipped.length ? `, ${done.skipped.length} already done (--force redoes them)` : ''}; ` +
        `${done.inputTokens} input and ${done.outputTokens} output tokens\n`,
    );
    return 0;
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
