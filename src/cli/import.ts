import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ID_PATTERN } from '../store/ids.js';
import { sha256Hex } from '../transcript/hash.js';
import {
  IMPORT_FORMATS,
  detectFormat,
  importClaudeCodeSession,
  importTranscript,
  type ImportFormat,
  type ImportResult,
} from '../transcript/import/index.js';
import { UsageError, type CliIO, type Command } from './command.js';
import { findSessions, fingerprint, sameFiles, type FoundSession, type Ledger } from './import-folder.js';
import {
  NoStoreError,
  openStore,
  requireStore,
  STORE_OPTIONS,
  STORE_USAGE,
  type CliStore,
  type StoreSpec,
} from './store.js';
import { writeImport, type HistoryReport } from './import-write.js';

const usage = `usage: glyphfold import PATH (--workspace DIR | --store URL) [--conversation ID] [--agent NAME]
                        [--format FORMAT] [--file-history DIR] [--dry-run]

Imports a transcript (${IMPORT_FORMATS.join(', ')}; detected unless --format is given) into a
new conversation of the store (created when missing), with its system prompt when it has one (recorded in the log's
header; view and compact --workspace send it). The conversation id defaults to the file name plus a short hash of
its content. The store's ledger (below) remembers every imported file: importing one again says it is
unchanged, appends to its conversation when it grew (an edit to an earlier part is reported, exit 1,
nothing changed); --conversation/--agent must then be left out or match.

A Claude Code session keeps its tree: edited prompts and rewinds become branches, the tip is the
newest entry, subagent runs (sidechains, <session>/subagents/agent-*.jsonl) become agent histories of
the conversation, and file-history snapshots become checkpoints (file contents are read from
--file-history DIR, default ~/.claude/file-history/<session> next to the projects folder).

PATH may be a folder: a Claude Code project folder (~/.claude/projects/<project>/), a Codex sessions
tree (~/.codex/sessions/), or any folder of supported files. Each session becomes one conversation
named after its file; the ledger (<workspace>/imports.json, or the table cli_imports in a database's
schema) remembers what was imported, so a re-run
skips unchanged sessions, appends to grown ones and reports rewritten ones (left as they were).
Progress goes to stderr (one line redrawn on a terminal, a line per session elsewhere), a summary to
stdout; the exit code is 1 when a session failed.
--dry-run reports what would happen and writes nothing.

A glyphfold log (from 'glyphfold export --format log', or a workspace's logs/<conversation>/<agent>.jsonl)
is stored as it is, byte for byte: the history it names (conversation and agent from its header) with
every branch, checkpoint and tip move, its hash chain checked first (a damaged log is refused). This
moves a history between a folder and a database either way.

${STORE_USAGE}
`;

/** A conversation id from a file name: invalid characters become '-', plus 8 hex of the content hash. */
export function conversationIdFor(file: string, text: string): string {
  const stem = basename(file)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+/, '')
    .slice(0, 80);
  const id = `${stem || 'import'}-${sha256Hex(text).slice(0, 8)}`;
  if (!ID_PATTERN.test(id)) throw new Error(`internal: derived conversation id ${id} is not valid`);
  return id;
}

/** Subagent logs of a Claude Code session file: `agent-*.jsonl` anywhere under `<stem>/subagents/`. */
function subagentFiles(file: string): string[] {
  const dir = join(dirname(file), basename(file).replace(/\.jsonl$/, ''), 'subagents');
  const out: string[] = [];
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (/^agent-.+\.jsonl$/.test(e.name)) out.push(join(d, e.name));
    }
  };
  walk(dir);
  return out;
}

/** Imports one session's files: Claude Code with its subagents, anything else as one transcript. */
function importFiles(
  file: string,
  agents: readonly string[],
  format: ImportFormat | undefined,
): ImportResult {
  const text = readFileSync(file, 'utf8');
  const f = format ?? detectFormat(text);
  if (f !== 'claude-code') return importTranscript(text, { format: f });
  const result = importClaudeCodeSession({
    main: text,
    agents: agents.map((a) => ({ file: basename(a), text: readFileSync(a, 'utf8') })),
  });
  if (result.items.length === 0)
    throw new Error(
      `import: the claude-code input holds no items to import; the importer noted: ${result.warnings.slice(0, 5).join('; ')}`,
    );
  return result;
}

/** Claude Code keeps file backups in ~/.claude/file-history/<session>/ beside ~/.claude/projects/. */
function fileHistoryFor(file: string, given: string | undefined): string | undefined {
  const session = basename(file).replace(/\.jsonl$/, '');
  if (given !== undefined) return join(given, session);
  const guess = join(dirname(dirname(dirname(file))), 'file-history', session);
  return existsSync(guess) ? guess : undefined;
}

const totals = (reports: readonly HistoryReport[]) => ({
  items: reports.reduce((n, r) => n + r.items, 0),
  branches: reports.reduce((n, r) => n + r.branches, 0),
  checkpoints: reports.reduce((n, r) => n + r.checkpoints, 0),
});

/** A warning's kind: its text with numbers, line lists and quoted values blanked. */
export function warningKind(w: string): string {
  return w
    .replace(/^line \d+: /, '')
    .replace(/\(lines? [^)]*\)|lines [\d, …]+(\(\d+ in all\))?/g, 'lines …')
    .replace(/"[^"]*"|'[^']*'/g, '…')
    .replace(/\b[\w-]*\d[\w-]*\b/g, 'N')
    .slice(0, 90);
}

export const importCommand: Command = {
  name: 'import',
  summary: 'import transcripts (a file, or a Claude Code / Codex folder) into a workspace',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...STORE_OPTIONS,
        conversation: { type: 'string' },
        agent: { type: 'string' },
        format: { type: 'string' },
        'file-history': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
      },
    });
    if (positionals.length !== 1) throw new UsageError(`expected one PATH, found ${positionals.length}`);
    const spec = requireStore(values, io);
    if (values.format !== undefined && !IMPORT_FORMATS.includes(values.format as ImportFormat))
      throw new UsageError(`--format expected one of ${IMPORT_FORMATS.join(', ')}, found ${values.format}`);
    const path = resolve(io.cwd, positionals[0]!);
    if (!existsSync(path)) throw new Error(`no such file or folder: ${path}`);
    const format = values.format as ImportFormat | undefined;
    const fileHistory =
      values['file-history'] !== undefined ? resolve(io.cwd, values['file-history']) : undefined;
    if (statSync(path).isDirectory()) {
      if (values.conversation !== undefined)
        throw new UsageError(
          '--conversation names one conversation; a folder import names each after its file',
        );
      return importFolder(
        path,
        spec,
        { format, fileHistory, agent: values.agent ?? 'main', dryRun: values['dry-run'] },
        io,
      );
    }

    const bytes = readFileSync(path);
    if (isLog(bytes)) return importLog(bytes, spec, values, io);
    return importFile(
      path,
      bytes.toString('utf8'),
      spec,
      {
        format,
        fileHistory,
        conversation: values.conversation,
        agent: values.agent,
        dryRun: values['dry-run'],
      },
      io,
    );
  },
};

interface FileOptions {
  format: ImportFormat | undefined;
  fileHistory: string | undefined;
  /** Given with --conversation / --agent; undefined when left to the defaults (or to the ledger). */
  conversation: string | undefined;
  agent: string | undefined;
  dryRun: boolean;
}

/**
 * One file (with its Claude Code subagent logs). The ledger makes it idempotent like a folder import:
 * a file imported before is skipped when unchanged, appended to its conversation when grown, and
 * refused when rewritten; a file the ledger does not know becomes a new conversation.
 */
async function importFile(
  path: string,
  text: string,
  spec: StoreSpec,
  o: FileOptions,
  io: CliIO,
): Promise<number> {
  const agentFiles = subagentFiles(path);
  const files = fingerprint([path, ...agentFiles]);
  // Read before the store is opened, so an input that yields nothing creates no workspace or schema.
  const result = importFiles(path, agentFiles, o.format);
  const store = await openOrNone(spec, o.dryRun);
  if (!store) {
    io.stdout.write(
      `would import ${result.tree.length} items (${result.format}) into a new store ${spec.shown}\n`,
    );
    return 0;
  }
  let reports: HistoryReport[];
  let again: boolean;
  let conversation: string;
  let agent: string;
  let missingBackups = 0;
  try {
    const known = (await store.ledger.read()).sources[path];
    const knownAgent = known?.agent ?? 'main';
    again =
      known !== undefined &&
      (await store.conversation(known.conversation))?.agents.includes(knownAgent) === true;
    if (again) {
      if (
        (o.conversation !== undefined && o.conversation !== known!.conversation) ||
        (o.agent !== undefined && o.agent !== knownAgent)
      )
        throw new Error(
          `${path} was imported into conversation ${known!.conversation} agent ${knownAgent} (${store.ledger.shown}); ` +
            'a re-import appends there: leave out --conversation and --agent, or copy the file to import it as another conversation',
        );
      if (sameFiles(known!, files)) {
        io.stdout.write(
          `unchanged: ${path} holds what was imported into conversation ${known!.conversation} agent ${knownAgent}; nothing written\n`,
        );
        return 0;
      }
      conversation = known!.conversation;
      agent = knownAgent;
    } else {
      conversation = o.conversation ?? conversationIdFor(path, text);
      agent = o.agent ?? 'main';
      if ((await store.conversation(conversation))?.agents.includes(agent))
        throw new Error(
          `conversation ${conversation} agent ${agent} already exists in ${store.shown}; pass another --conversation`,
        );
    }
    const options = {
      agent,
      ...(result.format === 'claude-code' ? { fileHistory: fileHistoryFor(path, o.fileHistory) } : {}),
      onMissingBackup: () => missingBackups++,
    };
    // Every history is compared before any is written, so a rewritten source changes nothing.
    const check = await writeImport(store, conversation, result, { ...options, dryRun: true });
    const rewritten = check.filter((r) => r.outcome === 'rewritten');
    if (rewritten.length > 0)
      throw new Error(
        `${path} was rewritten since it was imported into conversation ${conversation}: ` +
          rewritten.map((r) => `agent ${r.agent}: ${r.reason}`).join('; '),
      );
    if (!o.dryRun) missingBackups = 0; // counted again by the real write
    reports = o.dryRun ? check : await writeImport(store, conversation, result, options);
    if (!o.dryRun)
      await store.ledger.record(path, { conversation, ...(agent !== 'main' ? { agent } : {}), files });
  } finally {
    await store.close();
  }
  for (const w of result.warnings) io.stderr.write(`warning: ${w}\n`);
  for (const a of result.agents)
    for (const w of a.result.warnings) io.stderr.write(`warning: ${a.name}: ${w}\n`);
  if (missingBackups > 0)
    io.stderr.write(
      `warning: ${missingBackups} file backups named by checkpoints were not found; those files are not in the checkpoints\n`,
    );
  const main = reports[0]!;
  const t = totals(reports);
  const extra =
    reports.length > 1 || main.branches > 1 || t.checkpoints > 0
      ? ` (${reports.length} agents, ${t.items} items in all, ${t.branches} branches, ${t.checkpoints} checkpoints)`
      : '';
  const system =
    result.system !== undefined && main.outcome === 'imported'
      ? `, with its system prompt (${result.system.length} chars)`
      : '';
  const verb = !again
    ? `${o.dryRun ? 'would import' : 'imported'} ${main.items} items (${result.format}) into conversation ${conversation} agent ${agent}${extra}${system}`
    : reports.every((r) => r.outcome === 'unchanged')
      ? `unchanged: ${path} changed since it was imported into conversation ${conversation} agent ${agent} but holds no new items`
      : `${o.dryRun ? 'would extend' : 'extended'} conversation ${conversation} agent ${agent} by ${t.items} items (${result.format}; the file grew since it was imported)`;
  io.stdout.write(`${verb}\n`);
  return 0;
}

/** A glyphfold log (`glyphfold export --format log`, a folder's `<agent>.jsonl`): its first line is a header. */
function isLog(bytes: Uint8Array): boolean {
  const end = bytes.indexOf(0x0a);
  const first = Buffer.from(bytes.subarray(0, end < 0 ? Math.min(bytes.length, 1 << 20) : end)).toString(
    'utf8',
  );
  try {
    const v = JSON.parse(first) as { t?: unknown; v?: unknown };
    return v.t === 'header' && typeof v.v === 'number';
  } catch {
    return false;
  }
}

/** Stores a whole log as a new history, lines unchanged (the header names conversation and agent). */
async function importLog(
  bytes: Uint8Array,
  spec: StoreSpec,
  values: {
    conversation?: string | undefined;
    agent?: string | undefined;
    'dry-run': boolean;
    format?: string | undefined;
  },
  io: CliIO,
): Promise<number> {
  const header = JSON.parse(Buffer.from(bytes.subarray(0, bytes.indexOf(0x0a))).toString('utf8')) as {
    conversation: string;
    agent: string;
  };
  // The header is hashed into every line after it: a history cannot be renamed and keep its bytes.
  if (values.conversation !== undefined && values.conversation !== header.conversation)
    throw new UsageError(
      `--conversation ${values.conversation}: the log names its own conversation (${header.conversation}), which its lines' hashes cover`,
    );
  if (values.agent !== undefined && values.agent !== header.agent)
    throw new UsageError(`--agent ${values.agent}: the log names its own agent (${header.agent})`);
  if (values.format !== undefined)
    throw new UsageError(
      '--format: the file is a glyphfold log (its first line is a header), not a transcript',
    );
  const store = await openOrNone(spec, values['dry-run']);
  try {
    if (values['dry-run']) {
      const exists = (await store?.conversation(header.conversation))?.agents.includes(header.agent);
      io.stdout.write(
        `would store the log of conversation ${header.conversation} agent ${header.agent}${exists ? ', but it already exists' : ''}\n`,
      );
      return exists ? 1 : 0;
    }
    const r = await store!.importLog(bytes);
    for (const p of r.problems) io.stderr.write(`warning: ${p.kind}: ${p.message}\n`);
    if (r.missingBlobs > 0)
      io.stderr.write(
        `warning: ${r.missingBlobs} checkpoint file snapshots are not in ${store!.shown} (a log carries their hashes only); restoring files from those checkpoints will fail\n`,
      );
    io.stdout.write(
      `stored the log of conversation ${r.conversation} agent ${r.agent}: ${r.lines} lines, ${r.items} items, unchanged\n`,
    );
    return 0;
  } finally {
    await store?.close();
  }
}

/**
 * The store to write to; a dry run opens it read-only and gets `undefined` when it does not exist yet
 * (a dry run creates nothing).
 */
async function openOrNone(spec: StoreSpec, dryRun: boolean): Promise<CliStore | undefined> {
  try {
    return await openStore(spec, { readOnly: dryRun });
  } catch (err) {
    if (dryRun && err instanceof NoStoreError) return undefined;
    throw err;
  }
}

interface FolderOptions {
  format: ImportFormat | undefined;
  fileHistory: string | undefined;
  agent: string;
  dryRun: boolean;
}

async function importFolder(root: string, spec: StoreSpec, o: FolderOptions, io: CliIO): Promise<number> {
  const sessions = findSessions(root);
  if (sessions.length === 0)
    throw new Error(`no supported transcript files (.jsonl, .json, .traj) under ${root}`);
  const ws = await openOrNone(spec, o.dryRun);
  let ledger: Ledger;
  try {
    ledger = ws ? await ws.ledger.read() : { version: 1, sources: {} };
  } catch (err) {
    await ws?.close();
    throw err;
  }
  const counts = { imported: 0, extended: 0, unchanged: 0, failed: 0 };
  const all: HistoryReport[] = [];
  const warnings = new Map<string, number>();
  const failures: string[] = [];
  let missingBackups = 0;
  let subagents = 0; // subagent histories written
  let open = false; // a terminal line being redrawn
  const progress = (i: number, s: FoundSession, what: string): void => {
    const line = `[${i + 1}/${sessions.length}] ${s.file.slice(root.length + 1)}: ${what}`;
    // On a terminal one line is redrawn per session; failures stay on screen. Elsewhere (logs, pipes)
    // every session gets its own line.
    if (io.isTTY && !what.startsWith('FAILED')) {
      io.stderr.write(`\r\x1b[K${line}`);
      open = true;
    } else {
      io.stderr.write(`${open ? '\r\x1b[K' : ''}${line}\n`);
      open = false;
    }
  };
  try {
    for (const [i, s] of sessions.entries()) {
      try {
        const files = fingerprint([s.file, ...s.agents]);
        // A source the ledger knows goes on in the conversation it went to, also when that was a
        // single-file import (named with a content hash) or one with another --agent.
        const known = ledger.sources[s.file];
        const agent = known?.agent ?? o.agent;
        const there =
          known !== undefined &&
          (await ws?.conversation(known.conversation))?.agents.includes(agent) === true;
        if (there) s.conversation = known!.conversation;
        if (there && sameFiles(known!, files)) {
          counts.unchanged++;
          progress(i, s, 'unchanged (same content as imported)');
          continue;
        }
        const result = importFiles(s.file, s.agents, o.format);
        for (const w of [...result.warnings, ...result.agents.flatMap((a) => a.result.warnings)]) {
          const k = warningKind(w);
          warnings.set(k, (warnings.get(k) ?? 0) + 1);
        }
        let reports: HistoryReport[];
        if (!ws) {
          reports = [result, ...result.agents.map((a) => a.result)].map((r, n) => ({
            agent: n === 0 ? agent : result.agents[n - 1]!.name,
            outcome: 'imported' as const,
            items: r.tree.length,
            branches: r.tree.filter((x) => !r.tree.some((y) => y.parent === x.id)).length,
            checkpoints: r.checkpoints.length,
          }));
        } else {
          const options = {
            agent,
            ...(result.format === 'claude-code'
              ? { fileHistory: fileHistoryFor(s.file, o.fileHistory) }
              : {}),
            onMissingBackup: () => missingBackups++,
          };
          // Every history of the session is compared before any is written: a rewritten subagent
          // log leaves the main history unchanged too.
          const before = missingBackups;
          reports = await writeImport(ws, s.conversation, result, { ...options, dryRun: true });
          if (!o.dryRun && !reports.some((r) => r.outcome === 'rewritten')) {
            missingBackups = before;
            reports = await writeImport(ws, s.conversation, result, options);
          }
        }
        const rewritten = reports.filter((r) => r.outcome === 'rewritten');
        if (rewritten.length > 0) {
          counts.failed++;
          const why = rewritten.map((r) => `agent ${r.agent}: ${r.reason}`).join('; ');
          failures.push(`${s.file}: rewritten since it was imported: ${why}`);
          progress(i, s, `FAILED: rewritten since it was imported (${why})`);
          continue;
        }
        all.push(...reports);
        subagents += reports.slice(1).filter((r) => r.outcome !== 'unchanged').length;
        const outcome = reports.some((r) => r.outcome === 'imported' && r.agent === agent)
          ? 'imported'
          : reports.some((r) => r.outcome !== 'unchanged')
            ? 'extended'
            : 'unchanged';
        counts[outcome]++;
        const t = totals(reports);
        progress(
          i,
          s,
          `${o.dryRun ? `would be ${outcome}` : outcome} as ${s.conversation}: ${t.items} items, ${reports.length - 1} subagents, ${t.branches} branches, ${t.checkpoints} checkpoints`,
        );
        if (!o.dryRun)
          await ws!.ledger.record(s.file, {
            conversation: s.conversation,
            ...(agent !== 'main' ? { agent } : {}),
            files,
          });
      } catch (error) {
        counts.failed++;
        const message = (error as Error).message.split('\n')[0]!;
        failures.push(`${s.file}: ${message}`);
        progress(i, s, `FAILED: ${message}`);
      }
    }
  } finally {
    await ws?.close();
    if (open) io.stderr.write('\n');
  }
  const t = totals(all);
  const out = io.stdout;
  out.write(
    `${o.dryRun ? 'dry run: ' : ''}${sessions.length} sessions in ${root} -> ${spec.kind === 'folder' ? 'workspace' : 'store'} ${spec.shown}: ` +
      `${counts.imported} imported, ${counts.extended} extended, ${counts.unchanged} unchanged, ${counts.failed} failed\n`,
  );
  out.write(
    `${o.dryRun ? 'would write' : 'written'}: ${counts.imported + counts.extended} conversations, ${subagents} subagent histories, ${t.items} items, ${t.branches} branches, ${t.checkpoints} checkpoints\n`,
  );
  if (missingBackups > 0)
    out.write(
      `file backups named by checkpoints but not found (those files left out of the checkpoints): ${missingBackups}\n`,
    );
  if (warnings.size > 0) {
    out.write('warnings by kind:\n');
    for (const [k, n] of [...warnings].sort((a, b) => b[1] - a[1])) out.write(`  ${n} × ${k}\n`);
  }
  for (const f of failures) out.write(`failed: ${f}\n`);
  return counts.failed > 0 ? 1 : 0;
}
