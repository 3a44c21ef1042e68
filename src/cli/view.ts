/**
 * `glyphfold view`: what a transcript looks like on the wire (the exact request body a provider gets)
 * or on the screen (what a person reads).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { RENDERER } from '../compaction/policy.js';
import { rebuildRequest } from '../compaction/record.js';
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
import { storeSpec, STORE_OPTIONS, withStore, type StoreSpec } from './store.js';

/** The model a provider's view is built for when `--model` is not given. */
export const DEFAULT_VIEW_MODELS: Readonly<Record<WireProvider, string>> = {
  anthropic: 'claude-opus-4-7',
  'openai-chat': 'gpt-5.5',
  'openai-responses': 'gpt-5.5',
  gemini: 'gemini-3-pro',
};

const USAGE = `usage: glyphfold view FILE --provider PROVIDER [options]
       glyphfold view (--workspace DIR | --store URL) [CONVERSATION] --provider PROVIDER [options]
       glyphfold view FILE --screen

Prints the exact request body a provider would get for the transcript, as JSON on stdout. Tool
calls and results are paired first; each repair is reported on stderr, with a token estimate.

  --provider P        anthropic | openai-chat | openai-responses | gemini
  --model ID          model id as a route names it (default per provider: ${Object.entries(
    DEFAULT_VIEW_MODELS,
  )
    .map(([p, m]) => `${p} ${m}`)
    .join(', ')})
  --system TEXT       system prompt to send (not part of the record); default: the one the
                      transcript carried (or the workspace history recorded at import), if any
  --system-file F     read the system prompt from a file
  --format F          transcript format (${IMPORT_FORMATS.join(', ')}); default: detected
  --screen            print what a person reads instead (bubbles, with hidden items counted)
  --workspace DIR     read CONVERSATION (default: the most recent) from a glyphfold workspace;
                      its compaction records are replayed, so this is the request /context counts
  --store URL         the same from a store named by URL: postgres://USER@HOST:PORT/DB
                      (?schema=NAME), file:DIR or a path (GLYPHFOLD_STORE is not read here: without
                      --workspace or --store the argument is a FILE)
  --agent NAME        the agent whose history to view (default: main)
`;

/**
 * The active path (root → tip) of one agent of a conversation (the most recent one by default) in the
 * store `spec` names, with the system prompt its history was created with. Opens the store read-only.
 */
export async function loadStorePath(
  spec: StoreSpec,
  conversation: string | undefined,
  agent: string,
): Promise<{ items: Item[]; system?: string; conversation: string }> {
  // Reading must not create a workspace where there is none.
  if (spec.kind === 'folder' && !existsSync(spec.dir))
    throw new Error(`--workspace: no such directory '${spec.dir}'`);
  return withStore(spec, { readOnly: true }, async (store) => {
    let id = conversation;
    if (id === undefined) {
      const infos = [];
      for (const c of await store.conversations()) infos.push((await store.conversation(c))!);
      if (infos.length === 0) throw new Error(`no conversations in '${store.shown}'`);
      // Most recent first; ties broken by id so the choice is stable.
      infos.sort((a, b) =>
        a.created === b.created ? (a.id < b.id ? 1 : -1) : a.created < b.created ? 1 : -1,
      );
      id = infos[0]!.id;
    }
    const info = await store.conversation(id);
    if (!info)
      throw new Error(
        `no conversation '${id}' in '${store.shown}'; it has: ${(await store.conversations()).join(', ') || 'none'}`,
      );
    if (!info.agents.includes(agent))
      throw new Error(`conversation '${id}' has no agent '${agent}'; it has: ${info.agents.join(', ')}`);
    const h = await store.read(id, agent);
    try {
      const system = h.system;
      return { items: h.path(), conversation: id, ...(system !== undefined ? { system } : {}) };
    } finally {
      await h.close();
    }
  });
}

async function loadPath(
  positionals: string[],
  options: { store?: StoreSpec; agent: string; format?: string },
  io: CliIO,
): Promise<{ items: Item[]; system?: string }> {
  if (options.store !== undefined) {
    if (positionals.length > 1)
      throw new UsageError(
        `expected at most one CONVERSATION, found ${positionals.length}: ${positionals.join(' ')}`,
      );
    const { items, system } = await loadStorePath(options.store, positionals[0], options.agent);
    return { items, ...(system !== undefined ? { system } : {}) };
  }
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'expected a transcript FILE, or --workspace DIR / --store URL'
        : `expected one FILE, found ${positionals.length} arguments: ${positionals.join(' ')}`,
    );
  const format = options.format;
  if (format !== undefined && !IMPORT_FORMATS.includes(format as ImportFormat))
    throw new UsageError(`--format: expected one of ${IMPORT_FORMATS.join(', ')}, found '${format}'`);
  const text = await readFile(resolve(io.cwd, positionals[0]!), 'utf8');
  const result = importTranscript(text, format ? { format: format as ImportFormat } : {});
  for (const w of result.warnings) io.stderr.write(`import warning: ${w}\n`);
  return { items: result.items, ...(result.system !== undefined ? { system: result.system } : {}) };
}

/**
 * The system prompt to send: `--system-file`, else `--system`, else the one the transcript carried.
 * Says on stderr which one it is, so a 6 KB imported policy is never sent unnoticed, or dropped.
 */
export async function systemPrompt(
  values: { system?: string | undefined; 'system-file'?: string | undefined },
  imported: string | undefined,
  io: CliIO,
  from: 'transcript' | 'history' = 'transcript',
): Promise<string | undefined> {
  if (values['system-file'] !== undefined && values.system !== undefined)
    throw new UsageError('--system and --system-file: give one, not both');
  if (values['system-file'] !== undefined) return readFile(resolve(io.cwd, values['system-file']), 'utf8');
  if (values.system !== undefined) return values.system;
  if (imported !== undefined)
    io.stderr.write(
      `system: the ${from}'s own (${imported.length} chars); --system or --system-file replaces it\n`,
    );
  return imported;
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
      ...STORE_OPTIONS,
      agent: { type: 'string', default: 'main' },
    },
  });
  // Only the options name a store here: without them the argument is a transcript FILE.
  const store = storeSpec(values, io, { env: false });
  const loaded = await loadPath(
    positionals,
    {
      agent: values.agent,
      ...(store !== undefined ? { store } : {}),
      ...(values.format !== undefined ? { format: values.format } : {}),
    },
    io,
  );

  if (values.screen) {
    io.stdout.write(formatScreen(screenView(loaded.items)) + '\n');
    return 0;
  }
  // The request the record stands for: its last compaction group replayed (no model call).
  const path = (await rebuildRequest(loaded.items, RENDERER)).items;
  const compactions = loaded.items.filter((i) => i.kind === 'compaction').length;
  if (compactions > 0)
    io.stderr.write(`compaction: ${compactions} records in the path; the last group replayed\n`);
  const provider = values.provider as WireProvider | undefined;
  if (provider === undefined)
    throw new UsageError(`--provider is required: one of ${WIRE_PROVIDERS.join(', ')}`);
  if (!WIRE_PROVIDERS.includes(provider))
    throw new UsageError(`--provider: expected one of ${WIRE_PROVIDERS.join(', ')}, found '${provider}'`);
  const model = values.model ?? DEFAULT_VIEW_MODELS[provider];
  const resolved = resolveProfile(model);
  if (resolved.note) io.stderr.write(`profile: ${resolved.note}\n`);
  const request: WireRequest = { model, profile: resolved.profile };
  const system = await systemPrompt(
    values,
    loaded.system,
    io,
    store !== undefined ? 'history' : 'transcript',
  );
  if (system !== undefined) request.system = system;

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
