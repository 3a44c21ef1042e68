/**
 * `glyphfold view`: what a transcript looks like on the wire (the exact request body a provider gets)
 * or on the screen (what a person reads).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveProfile } from '../providers/index.js';
import { estimateTokens } from '../tokens/index.js';
import { IMPORT_FORMATS, importTranscript, type ImportFormat } from '../transcript/import/index.js';
import type { Item } from '../transcript/items.js';
import {
  formatScreen,
  screenView,
  wireView,
  WIRE_PROVIDERS,
  type WireProvider,
  type WireRequest,
} from '../views/index.js';
import { UsageError, type CliIO, type Command } from './command.js';

/** The model a provider's view is built for when `--model` is not given. */
export const DEFAULT_VIEW_MODELS: Readonly<Record<WireProvider, string>> = {
  anthropic: 'claude-opus-4-7',
  'openai-chat': 'gpt-5.5',
  'openai-responses': 'gpt-5.5',
  gemini: 'gemini-3-pro',
};

const USAGE = `usage: glyphfold view FILE --provider PROVIDER [options]
       glyphfold view --workspace DIR [CONVERSATION] --provider PROVIDER [options]
       glyphfold view FILE --screen

Prints the exact request body a provider would get for the transcript, as JSON on stdout. Tool
calls and results are paired first; each repair is reported on stderr, with a token estimate.

  --provider P        anthropic | openai-chat | openai-responses | gemini
  --model ID          model id as a route names it (default per provider: ${Object.entries(
    DEFAULT_VIEW_MODELS,
  )
    .map(([p, m]) => `${p} ${m}`)
    .join(', ')})
  --system TEXT       system prompt to send (not part of the record)
  --system-file F     read the system prompt from a file
  --format F          transcript format (${IMPORT_FORMATS.join(', ')}); default: detected
  --screen            print what a person reads instead (bubbles, with hidden items counted)
  --workspace DIR     read CONVERSATION (default: the most recent) from a glyphfold workspace
`;

async function loadPath(
  file: string | undefined,
  workspace: string | undefined,
  format: string | undefined,
  io: CliIO,
): Promise<Item[]> {
  if (workspace !== undefined) {
    // The workspace store is written in parallel (helper `store`); this form waits for it.
    throw new Error(
      'not implemented yet: --workspace needs the workspace store, which has not landed; pass a transcript FILE',
    );
  }
  if (file === undefined) throw new UsageError('expected a transcript FILE or --workspace DIR');
  if (format !== undefined && !IMPORT_FORMATS.includes(format as ImportFormat))
    throw new UsageError(`--format: expected one of ${IMPORT_FORMATS.join(', ')}, found '${format}'`);
  const path = resolve(io.cwd, file);
  const text = await readFile(path, 'utf8');
  const result = importTranscript(text, format ? { format: format as ImportFormat } : {});
  for (const w of result.warnings) io.stderr.write(`import warning: ${w}\n`);
  return result.items;
}

async function run(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      model: { type: 'string' },
      system: { type: 'string' },
      'system-file': { type: 'string' },
      format: { type: 'string' },
      screen: { type: 'boolean' },
      workspace: { type: 'string' },
    },
  });
  if (positionals.length > 1 && values.workspace === undefined)
    throw new UsageError(
      `expected one FILE, found ${positionals.length} arguments: ${positionals.join(' ')}`,
    );
  const path = await loadPath(
    values.workspace === undefined ? positionals[0] : undefined,
    values.workspace,
    values.format,
    io,
  );

  if (values.screen) {
    io.stdout.write(formatScreen(screenView(path)) + '\n');
    return 0;
  }
  const provider = values.provider as WireProvider | undefined;
  if (provider === undefined)
    throw new UsageError(`--provider is required: one of ${WIRE_PROVIDERS.join(', ')}`);
  if (!WIRE_PROVIDERS.includes(provider))
    throw new UsageError(`--provider: expected one of ${WIRE_PROVIDERS.join(', ')}, found '${provider}'`);
  const model = values.model ?? DEFAULT_VIEW_MODELS[provider];
  const resolved = resolveProfile(model);
  if (resolved.note) io.stderr.write(`profile: ${resolved.note}\n`);
  const request: WireRequest = { model, profile: resolved.profile };
  if (values['system-file'] !== undefined)
    request.system = await readFile(resolve(io.cwd, values['system-file']), 'utf8');
  else if (values.system !== undefined) request.system = values.system;

  const { body, repairs } = wireView(provider, path, request);
  for (const r of repairs)
    io.stderr.write(
      `repair: ${r.kind}${r.itemId ? ` ${r.itemId}` : ''}${r.callId ? ` (call ${r.callId})` : ''}: ${r.detail}\n`,
    );
  const estimate = estimateTokens(provider, path, request);
  io.stderr.write(
    `estimate: ${estimate.total} input tokens (${estimate.text} text, ${estimate.images} in ${estimate.imageCount} images), ${repairs.length} repairs\n`,
  );
  io.stdout.write(JSON.stringify(body, null, 2) + '\n');
  return 0;
}

export const viewCommand: Command = {
  name: 'view',
  summary: 'print the request body a provider gets for a transcript (or the screen a person sees)',
  usage: USAGE,
  run,
};
