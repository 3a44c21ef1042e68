import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CELL_NAMES, type CellName } from '../render/cells.js';
import {
  DEFAULT_MAX_CER,
  ROUTES,
  bestPageShape,
  registerProfiles,
  resolveProfile,
  type PageShapeChoice,
  type ResolvedProfile,
  type Route,
} from '../providers/index.js';
import { pageLegibility } from '../compaction/policy.js';
import type { SnapshotLegibility } from '../compaction/report.js';
import { UsageError, type Command } from './command.js';
import { maxCerOption, readLegibilityFile, variantOption } from './legibility-options.js';

/** The models `glyphfold shapes` compares when none is named: the main ones of every provider and route. */
export const DEFAULT_SHAPE_MODELS: readonly string[] = [
  'claude-opus-4-7',
  'claude-sonnet-4-6',
  'claude-haiku-4-5',
  'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  'gpt-4o',
  'gpt-4.1',
  'gpt-5',
  'gpt-5.4',
  'gpt-5.5',
  'gpt-4.1-mini',
  'o4-mini',
  'o3-mini',
  'gemini-2.5-pro',
  'gemini-3-pro',
];

/** Characters per text token assumed for the compression estimate (English prose and code, roughly). */
export const DEFAULT_TEXT_CHARS_PER_TOKEN = 4;

export interface ShapeRow {
  model: string;
  family: string;
  profile: string;
  route: Route;
  guessed: boolean;
  vision: boolean;
  note?: string;
  shape?: PageShapeChoice;
  /** Characters per image token ÷ characters per text token. */
  compression?: number;
  /** Expected character error rate of the page's variant for the model's readers, with its source. */
  legibility?: SnapshotLegibility;
}

/**
 * One row per model: the page that carries the most characters per token among the variants the
 * legibility floor admits for the model's reader family (or the variant given by `variant`, `cell`,
 * `scale`), with its expected error rate.
 */
export function shapeRows(
  models: readonly string[],
  options: {
    cell?: CellName;
    scale?: number;
    /** A variant id (`5x8+c1+r1`): wins over cell and scale; no choice by legibility. */
    variant?: string;
    /** Legibility floor (default 0.01). */
    maxCer?: number;
    /** A legibility table (parsed file) over the built-in one. */
    legibility?: unknown;
    imagesInRequest?: number;
    route?: Route;
    textCharsPerToken: number;
  },
): ShapeRow[] {
  return models.map((model) => {
    const r: ResolvedProfile = resolveProfile(model, options.route ? { route: options.route } : {});
    const row: ShapeRow = {
      model,
      family: r.profile.family,
      profile: r.profile.name,
      route: r.route,
      guessed: r.guessed,
      vision: r.profile.vision,
    };
    const notes: string[] = r.note ? [r.note] : [];
    if (r.profile.vision) {
      const l = pageLegibility(r.profile, {
        model,
        snapshot: { maxCer: options.maxCer ?? DEFAULT_MAX_CER },
        ...(options.legibility !== undefined ? { legibility: options.legibility } : {}),
        ...(options.variant !== undefined ? { variant: options.variant } : {}),
        ...(options.cell !== undefined ? { cell: options.cell } : {}),
        ...(options.scale !== undefined ? { scale: options.scale } : {}),
      });
      // The admitted variant whose page carries the most characters per token; ties: the more legible.
      let best: { shape: PageShapeChoice; legibility: SnapshotLegibility } | undefined;
      for (const [variant, expected] of l.expected) {
        const shapeOptions: Parameters<typeof bestPageShape>[1] = { variant };
        if (options.imagesInRequest) shapeOptions.imagesInRequest = options.imagesInRequest;
        const shape = bestPageShape(r.profile, shapeOptions);
        if (!best || shape.charsPerToken > best.shape.charsPerToken) {
          best = {
            shape,
            legibility: expected ?? { readerFamily: l.readerFamily, maxCer: l.maxCer, forced: l.forced },
          };
        }
      }
      row.shape = best!.shape;
      row.legibility = best!.legibility;
      row.compression = row.shape.charsPerToken / options.textCharsPerToken;
      if (row.shape.note) notes.push(row.shape.note);
    } else {
      notes.push('no vision: snapshots cannot be read, compaction uses a summary');
    }
    if (notes.length > 0) row.note = notes.join('; ');
    return row;
  });
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The CER cell: the figure, the family it was measured with when not the model's own, `?` unmeasured. */
function cerCell(l: SnapshotLegibility | undefined): string {
  if (!l) return '-';
  if (l.cer === undefined) return 'unmeasured';
  return `${pct(l.cer)}${l.family !== l.readerFamily ? ` (${l.family})` : ''}${l.fallback ? ' *' : ''}`;
}

function table(rows: ShapeRow[], textCharsPerToken: number): string {
  const head = [
    'model',
    'profile',
    'route',
    'page W×H',
    'detail',
    'tokens/page',
    'chars/page',
    'chars/token',
    `vs text (${textCharsPerToken} ch/tok)`,
    'pages/request',
    'variant',
    'expected CER',
  ];
  const body = rows.map((r) => {
    const s = r.shape;
    const mark = (s && !s.verified ? ' (unverified)' : '') + (r.guessed ? ' (guessed)' : '');
    return [
      r.model,
      r.profile,
      r.route,
      s ? `${s.width}×${s.height}${mark}` : `no vision${mark}`,
      s?.detail ?? '-',
      s ? String(s.tokens) : '-',
      s ? String(s.charsPerPage) : '-',
      s ? s.charsPerToken.toFixed(1) : '-',
      r.compression !== undefined ? `${r.compression.toFixed(1)}×` : '-',
      s ? String(s.pagesPerRequest) : '-',
      s ? s.variant : '-',
      cerCell(r.legibility),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 5 && i < 10 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)];
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.model}: ${r.note}`);
  if (notes.length > 0) out.push('', 'notes:', ...notes);
  // Where the error rates come from, and the fallbacks, once each.
  const sources = new Set<string>();
  const fallbacks = new Set<string>();
  for (const r of rows) {
    if (r.legibility?.source) sources.add(r.legibility.source);
    if (r.legibility?.note) fallbacks.add(r.legibility.note);
  }
  if (sources.size || fallbacks.size) {
    out.push(
      '',
      `legibility (floor ${pct(rows.find((r) => r.legibility)?.legibility?.maxCer ?? DEFAULT_MAX_CER)}):`,
    );
    for (const src of sources) out.push(`  measured: ${src}`);
    for (const f of fallbacks) out.push(`  * ${f}`);
  }
  return out.join('\n') + '\n';
}

const usage = `usage: glyphfold shapes [--model ID …] [--max-cer X] [--legibility FILE] [--variant ID]
                        [--cell 4x6|5x8|6x10] [--scale N] [--images N] [--route ROUTE]
                        [--text-chars-per-token N] [--profiles FILE] [--json]

For each model (as its route names it): among the page variants whose measured character error rate
for the model's readers is within the floor (the most legible measured one if none is), the snapshot
page that carries the most characters per billed image token without being resized; its tokens,
characters per page and per token, the estimated compression against sending the same characters as
text, how many such pages one request may carry, the variant and its expected error rate. With no
--model, a table of the main models of every provider.

  --model ID                 a model id, e.g. claude-opus-4-7, us.anthropic.claude-haiku-4-5-20251001-v1:0,
                             anthropic/claude-sonnet-4.5, gpt-5.5, gemini-2.5-pro (repeatable)
  --max-cer X                legibility floor: highest measured error rate a variant may have, as a
                             fraction or percentage (default ${DEFAULT_MAX_CER}, i.e. 1%)
  --legibility FILE          your own measurements (legibility table JSON, docs/providers.md); they win
                             over the built-in table per variant and reader family
  --variant ID               use this page variant (e.g. 5x8+c1+r1, 6x10+flow) instead of choosing
  --cell NAME                use this glyph cell (like --variant 5x8)
  --scale N                  integer pixel scale 1-4 (with --cell)
  --images N                 images the request carries (Anthropic: more than 20 → sides ≤ 2000 px)
  --route ROUTE              force the route (${ROUTES.join(', ')})
  --text-chars-per-token N   characters per text token for the compression estimate (default ${DEFAULT_TEXT_CHARS_PER_TOKEN})
  --profiles FILE            a JSON profile file that adds or overrides profiles (see docs/providers.md)
  --json                     print JSON instead of a table
`;

function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, found '${v}'`);
  return n;
}

export const shapesCommand: Command = {
  name: 'shapes',
  summary: 'best snapshot page shape, tokens and compression per model',
  usage,
  async run(argv, io) {
    const { values } = parseArgs({
      args: argv,
      options: {
        model: { type: 'string', multiple: true },
        cell: { type: 'string' },
        scale: { type: 'string' },
        images: { type: 'string' },
        route: { type: 'string' },
        'text-chars-per-token': { type: 'string' },
        profiles: { type: 'string' },
        'max-cer': { type: 'string' },
        legibility: { type: 'string' },
        variant: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    const cell = values.cell;
    if (cell !== undefined && !(CELL_NAMES as string[]).includes(cell)) {
      throw new UsageError(`--cell must be one of ${CELL_NAMES.join(', ')}, found '${cell}'`);
    }
    const route = values.route;
    if (route !== undefined && !(ROUTES as readonly string[]).includes(route)) {
      throw new UsageError(`--route must be one of ${ROUTES.join(', ')}, found '${route}'`);
    }
    const cpt = values['text-chars-per-token'];
    const textCharsPerToken = cpt === undefined ? DEFAULT_TEXT_CHARS_PER_TOKEN : Number(cpt);
    if (!(textCharsPerToken > 0) || !Number.isFinite(textCharsPerToken)) {
      throw new UsageError(`--text-chars-per-token must be a positive number, found '${String(cpt)}'`);
    }
    if (values.profiles !== undefined) {
      const file = resolve(io.cwd, values.profiles);
      let json: unknown;
      try {
        json = JSON.parse(await readFile(file, 'utf8'));
      } catch (err) {
        throw new Error(`cannot read profile file ${file}: ${(err as Error).message}`, { cause: err });
      }
      registerProfiles(json, values.profiles);
    }
    const models = values.model && values.model.length > 0 ? values.model : DEFAULT_SHAPE_MODELS;
    const options: Parameters<typeof shapeRows>[1] = { textCharsPerToken };
    if (cell !== undefined) options.cell = cell as CellName;
    const scale = positiveInt(values.scale, '--scale');
    if (scale !== undefined) options.scale = scale;
    const images = positiveInt(values.images, '--images');
    if (images !== undefined) options.imagesInRequest = images;
    if (route !== undefined) options.route = route as Route;
    const maxCer = maxCerOption(values['max-cer']);
    if (maxCer !== undefined) options.maxCer = maxCer;
    if (values.variant !== undefined) options.variant = variantOption(values.variant);
    if (values.legibility !== undefined)
      options.legibility = await readLegibilityFile(resolve(io.cwd, values.legibility), values.legibility);
    const rows = shapeRows(models, options);
    if (values.json) io.stdout.write(JSON.stringify({ textCharsPerToken, rows }, null, 2) + '\n');
    else io.stdout.write(table(rows, textCharsPerToken));
    return 0;
  },
};
