import { mkdir, readdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import {
  anthropicSummarizer,
  geminiSummarizer,
  openaiSummarizer,
  type SummarizerClient,
} from '../compaction/summarize.js';
import { prepareRequest, type CompactionOptions } from '../compaction/policy.js';
import { formatReport } from '../compaction/report.js';
import { RUNGS, type RungName } from '../compaction/types.js';
import { resolveProfile } from '../providers/index.js';
import { CELL_NAMES, type CellName } from '../render/index.js';
import { createRenderPool } from '../render-node/index.js';
import { IMPORT_FORMATS, importTranscript, type ImportFormat } from '../transcript/import/index.js';
import type { Item } from '../transcript/items.js';
import { WIRE_PROVIDERS, type WireProvider } from '../views/index.js';
import { UsageError, type CliIO, type Command } from './command.js';
import { pageFileName } from './page-files.js';
import { maxCerOption, readLegibilityFile, variantOption } from './legibility-options.js';
import { loadStorePath, systemPrompt } from './view.js';
import { storeSpec, STORE_OPTIONS } from './store.js';

const usage = `usage: glyphfold compact FILE --model ID --out DIR [options]
       glyphfold compact (--workspace DIR | --store URL) [CONVERSATION] --model ID --out DIR [options]

Imports a transcript (Claude Code, Codex, OpenAI Chat, Anthropic, Vercel AI SDK, LangChain, SWE-agent
.traj or glyphfold JSONL), climbs the
compaction ladder for the model (elide → shed → snapshot → summarize) until the request fits, and
writes DIR/request.json (the exact request body), DIR/page-NNN.png (the snapshot pages) and
DIR/records.json (the compaction items a history would append). Prints the report.

  --model ID            target model as its route names it (e.g. claude-sonnet-4-6, gpt-5.4)
  --out DIR             where the files go (required)
  --budget TOKENS       use this context window instead of the model's (try the ladder on any history)
  --trigger X           compact above X: tokens (150000, 150k) or a fraction of the limit (0.8, 80%)
  --format NAME         input format: ${IMPORT_FORMATS.join(', ')} (default: detected)
  --wire NAME           request format: ${WIRE_PROVIDERS.join(', ')} (default: the model's provider)
  --rungs LIST          rungs allowed, comma-separated (default ${RUNGS.join(',')})
  --force               run the rungs even if the request already fits
  --max-cer X           legibility floor for snapshot pages: the highest measured character error rate
                        a page variant may have for the model's readers, as a fraction or percentage
                        (default 0.01 = 1%; if none is within it, the most legible measured variant)
  --legibility FILE     your own measurements (legibility table JSON, docs/providers.md), over the
                        built-in table per variant and reader family
  --variant ID          use this page variant whatever its legibility (e.g. 5x8+c1+r1, 6x10+flow)
  --cell NAME           use this glyph cell: ${CELL_NAMES.join(', ')} (like --variant)
  --scale N             snapshot scale 1–4 (with --cell)
  --summarizer ID       model for the summary rung (needs its API key in the environment)
  --summarizer-url URL  base URL for the summarizer's API
  --instructions TEXT   what the summary should focus on
  --workspace DIR       compact the active path of CONVERSATION (default: the most recent) of a
                        glyphfold workspace, read-only, instead of a FILE
  --store URL           the same from a store named by URL: postgres://USER@HOST:PORT/DB
                        (?schema=NAME), file:DIR or a path (GLYPHFOLD_STORE is not read here)
  --agent NAME          the agent whose history to compact (default: main)
  --system TEXT         system prompt the request carries (counted in the budget); default: the
                        one the transcript carried (or the workspace history recorded), if any
  --system-file F       read the system prompt from a file
  --json                print one JSON object (report, request file, page files) instead of text
  --jobs N              render snapshot texts of 16 pages or more on N threads, this one and N-1
                        workers, 'auto' = one per core (default 1: this thread only); the same bytes
`;

const PAGE_FILE = /^page-\d{3,}\.png$/;

function rungList(value: string): RungName[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const r of list) {
    if (!(RUNGS as readonly string[]).includes(r)) {
      throw new UsageError(`--rungs expects names from ${RUNGS.join(', ')}, found '${r}'`);
    }
  }
  return list as RungName[];
}

function budgetTokens(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(k|m)?$/i.exec(value.trim());
  if (!m) throw new UsageError(`--budget expects tokens (e.g. 60000 or 60k), found '${value}'`);
  const n = Math.round(
    Number(m[1]) * (m[2]?.toLowerCase() === 'k' ? 1000 : m[2]?.toLowerCase() === 'm' ? 1e6 : 1),
  );
  if (n < 1000) throw new UsageError(`--budget must be at least 1000 tokens, found ${n}`);
  return n;
}

/** The summarizer client for a model id: Claude, OpenAI or Gemini, sized by that model's window. */
export function summarizerFor(
  model: string,
  baseURL: string | undefined,
): { client: SummarizerClient; window: number } {
  const { profile } = resolveProfile(model);
  const base = baseURL ? { baseURL } : {};
  const client =
    profile.provider === 'openai'
      ? openaiSummarizer({ model, ...base })
      : profile.provider === 'anthropic'
        ? anthropicSummarizer({ model, ...base })
        : profile.provider === 'gemini'
          ? geminiSummarizer({ model, ...base })
          : undefined;
  if (!client)
    throw new UsageError(
      `--summarizer: no client for ${profile.provider} models yet (use a Claude, OpenAI or Gemini model)`,
    );
  return { client, window: profile.contextWindow - Math.min(profile.maxOutput, 8000) };
}

export const compactCommand: Command = {
  name: 'compact',
  summary: 'compact a transcript for a model: request JSON, snapshot pages and a report',
  usage,
  async run(argv: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        model: { type: 'string' },
        out: { type: 'string' },
        budget: { type: 'string' },
        trigger: { type: 'string' },
        format: { type: 'string' },
        wire: { type: 'string' },
        rungs: { type: 'string' },
        force: { type: 'boolean', default: false },
        cell: { type: 'string' },
        scale: { type: 'string' },
        variant: { type: 'string' },
        'max-cer': { type: 'string' },
        legibility: { type: 'string' },
        summarizer: { type: 'string' },
        'summarizer-url': { type: 'string' },
        instructions: { type: 'string' },
        system: { type: 'string' },
        'system-file': { type: 'string' },
        ...STORE_OPTIONS,
        agent: { type: 'string', default: 'main' },
        json: { type: 'boolean', default: false },
        jobs: { type: 'string', default: '1' },
      },
    });
    if (!/^(auto|[1-9]\d*)$/.test(values.jobs))
      throw new UsageError(`--jobs expects an integer ≥ 1 or 'auto', found '${values.jobs}'`);
    const jobs = values.jobs === 'auto' ? availableParallelism() : Number(values.jobs);
    // Only the options name a store here: without them the argument is a transcript FILE.
    const store = storeSpec(values, io, { env: false });
    if (store !== undefined) {
      if (positionals.length > 1)
        throw new UsageError(
          `expected at most one CONVERSATION with --workspace or --store, found ${positionals.length}`,
        );
      if (values.format !== undefined)
        throw new UsageError('--format applies to a FILE, not to --workspace or --store');
    } else if (positionals.length !== 1)
      throw new UsageError(`expected one FILE, found ${positionals.length}`);
    if (!values.model) throw new UsageError('--model ID is required');
    if (!values.out) throw new UsageError('--out DIR is required');
    if (values.format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(values.format)) {
      throw new UsageError(`--format expects one of ${IMPORT_FORMATS.join(', ')}, found '${values.format}'`);
    }
    if (values.wire !== undefined && !(WIRE_PROVIDERS as readonly string[]).includes(values.wire)) {
      throw new UsageError(`--wire expects one of ${WIRE_PROVIDERS.join(', ')}, found '${values.wire}'`);
    }
    if (values.cell !== undefined && !CELL_NAMES.includes(values.cell as CellName)) {
      throw new UsageError(`--cell expects one of ${CELL_NAMES.join(', ')}, found '${values.cell}'`);
    }
    if (values.scale !== undefined && !/^[1-4]$/.test(values.scale))
      throw new UsageError(`--scale expects an integer 1–4, found '${values.scale}'`);
    const maxCer = maxCerOption(values['max-cer']);
    const variant = values.variant === undefined ? undefined : variantOption(values.variant);
    const legibility =
      values.legibility === undefined
        ? undefined
        : await readLegibilityFile(resolve(io.cwd, values.legibility), values.legibility);

    let file: string;
    let imported: { items: Item[]; system?: string; format: string; warnings: string[] };
    if (store !== undefined) {
      const loaded = await loadStorePath(store, positionals[0], values.agent);
      file = `${store.shown} conversation ${loaded.conversation} agent ${values.agent}`;
      imported = { ...loaded, format: store.kind === 'folder' ? 'workspace' : 'postgres', warnings: [] };
    } else {
      file = positionals[0]!;
      const text = await readFile(resolve(io.cwd, file), 'utf8');
      imported = importTranscript(text, values.format ? { format: values.format as ImportFormat } : {});
    }

    const options: CompactionOptions = {
      model: values.model,
      ...(values.cell !== undefined ? { cell: values.cell as CellName } : {}),
      ...(values.scale !== undefined ? { scale: Number(values.scale) } : {}),
      ...(variant !== undefined ? { variant } : {}),
      ...(maxCer !== undefined ? { snapshot: { maxCer } } : {}),
      ...(legibility !== undefined ? { legibility } : {}),
      budget: {
        ...(values.budget ? { window: budgetTokens(values.budget) } : {}),
        ...(values.trigger ? { triggerAt: values.trigger } : {}),
      },
    };
    const system = await systemPrompt(
      values,
      imported.system,
      io,
      store !== undefined ? 'history' : 'transcript',
    );
    if (system !== undefined) options.request = { system };
    if (values.wire) options.wire = values.wire as WireProvider;
    if (values.rungs) options.rungs = rungList(values.rungs);
    if (values.summarizer) {
      options.summarizer = {
        ...summarizerFor(values.summarizer, values['summarizer-url']),
        ...(values.instructions ? { instructions: values.instructions } : {}),
      };
    }
    // Same bytes as this thread renders (src/render-node/pool.ts); only large snapshot texts go there.
    const pool = jobs > 1 ? createRenderPool({ size: jobs - 1, callerRenders: true }) : undefined;
    if (pool) options.pool = pool;
    let prepared;
    try {
      prepared = await prepareRequest(imported.items, options, values.force);
    } finally {
      await pool?.close();
    }

    const outDir = resolve(io.cwd, values.out);
    await mkdir(outDir, { recursive: true });
    // Stale pages from an earlier run would otherwise sit beside this one's.
    for (const entry of await readdir(outDir)) if (PAGE_FILE.test(entry)) await unlink(join(outDir, entry));
    const requestFile = 'request.json';
    await writeFile(join(outDir, requestFile), JSON.stringify(prepared.body, null, 2) + '\n');
    await writeFile(join(outDir, 'records.json'), JSON.stringify(prepared.records, null, 2) + '\n');
    const pages: { file: string; width: number; height: number; chars: number }[] = [];
    for (const run of prepared.rendered) {
      for (const p of run.pages) {
        const name = pageFileName(pages.length);
        await writeFile(join(outDir, name), p.png);
        pages.push({ file: name, width: p.width, height: p.height, chars: p.chars });
      }
    }
    const report = prepared.report;
    if (values.json) {
      io.stdout.write(
        JSON.stringify({
          input: file,
          format: imported.format,
          warnings: imported.warnings,
          out: outDir,
          request: requestFile,
          records: 'records.json',
          pages,
          repairs: prepared.repairs,
          report,
        }) + '\n',
      );
      return report.fits ? 0 : 1;
    }
    const lines = [`compacted ${file} (${imported.format}, ${imported.items.length} items) → ${values.out}`];
    io.stdout.write(lines.join('\n') + '\n' + formatReport(report));
    for (const w of imported.warnings.slice(0, 5)) io.stdout.write(`import warning: ${w}\n`);
    if (imported.warnings.length > 5)
      io.stdout.write(`(${imported.warnings.length - 5} more import warnings)\n`);
    io.stdout.write(
      `files: ${requestFile}, records.json${pages.length ? `, ${pages[0]!.file}${pages.length > 1 ? ` … ${pages[pages.length - 1]!.file}` : ''}` : ''}\n`,
    );
    return report.fits ? 0 : 1;
  },
};
